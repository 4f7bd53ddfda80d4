import EmulatorCore
import Logging

/// A swift-log handler that records into a `SuiteLog` (the Emulator UI's Logs page); give it to a
/// `MultiplexLogHandler` beside the one writing to standard error, each with its own level.
public struct SuiteLogHandler: LogHandler {
    /// The lowest level recorded (info by default: the UI shows what the emulators say, not each request).
    public var logLevel: Logger.Level = .info
    /// Metadata, kept as swift-log asks (not recorded).
    public var metadata: Logger.Metadata = [:]
    /// Not used.
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let log: SuiteLog

    /// A handler recording lines of the logger `label` into `log`.
    public init(label: String, log: SuiteLog) {
        self.label = label
        self.log = log
    }

    /// Metadata by key, kept as swift-log asks.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Records the event's level and message.
    public func log(event: LogEvent) {
        log.record(LogLine(level: event.level.rawValue, source: label, message: event.message.description))
    }
}
