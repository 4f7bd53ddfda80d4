import Foundation

/// One line of the suite's log (what it tells the developer, and what its emulators log at info level and
/// above), as the Emulator UI's Logs page shows it.
public struct LogLine: LiveLogEntry {
    /// Its place in the log.
    public var id = 0
    /// When it was logged.
    public var time: Date
    /// `trace`, `debug`, `info`, `notice`, `warning`, `error` or `critical`.
    public var level: String
    /// Who logged it: `hearth`, or the emulator whose message it is (`auth`, `firestore`, ...).
    public var source: String
    /// The text.
    public var message: String

    /// A line logged now unless `time` says otherwise.
    public init(level: String, source: String, message: String, time: Date = Date()) {
        self.time = time
        self.level = level
        self.source = source
        self.message = message
    }

    /// `{id, time, level, source, message}`.
    public var json: JSONValue {
        [
            "id": .int(Int64(id)), "time": .string(time.iso8601WithMilliseconds), "level": .string(level),
            "source": .string(source), "message": .string(message),
        ]
    }
}

/// The suite's log lines, for the Emulator UI's Logs page.
public typealias SuiteLog = LiveLog<LogLine>
