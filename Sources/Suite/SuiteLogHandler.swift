import EmulatorCore
import Logging

/// The suite's swift-log handler: records into a `SuiteLog` (the Emulator UI's Logs page) and, when given
/// one, writes to another handler (standard error), each with its own level.
///
/// It keeps the logger's metadata itself and hands it to the other handler only with a line that handler
/// writes. Hummingbird sets a request id on every request's logger; `MultiplexLogHandler` passed each set
/// on to `StreamLogHandler`, which formats its whole metadata again on every change (~2 % of a WebChannel
/// round's server CPU), for lines that are almost never written.
public struct SuiteLogHandler: LogHandler {
    /// The lowest level this handler takes: the lower of the recorded level and the other handler's.
    public var logLevel: Logger.Level
    /// The lowest level recorded: info, so the UI shows what the emulators say, not each request.
    private static let recordLevel = Logger.Level.info
    /// The logger's metadata, given to the other handler with each line it writes (not recorded).
    public var metadata: Logger.Metadata = [:]
    /// Not used.
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let log: SuiteLog
    /// The handler lines also go to (its own level applies), if any.
    private let output: (any LogHandler)?

    /// A handler recording lines of the logger `label` into `log`, and writing them to `output` at its level.
    public init(label: String, log: SuiteLog, output: (any LogHandler)? = nil) {
        self.label = label
        self.log = log
        self.output = output
        logLevel = min(Self.recordLevel, output?.logLevel ?? Self.recordLevel)
    }

    /// Metadata by key.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes the event to the other handler at its level, with the logger's metadata; records its level
    /// and message at this handler's level.
    public func log(event: LogEvent) {
        if let output, event.level >= output.logLevel {
            var event = event
            if !metadata.isEmpty { event.metadata = metadata.merging(event.metadata ?? [:]) { _, explicit in explicit } }
            output.log(event: event)
        }
        if event.level >= Self.recordLevel {
            log.record(LogLine(level: event.level.rawValue, source: label, message: event.message.description))
        }
    }
}
