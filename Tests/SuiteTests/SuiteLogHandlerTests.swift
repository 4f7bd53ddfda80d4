import EmulatorCore
import Logging
import Suite
import Synchronization
import Testing

@Suite struct SuiteLogHandlerTests {
    /// Lines at info and above are recorded for the UI; the other handler writes at its own level, with the
    /// logger's metadata (set per request by the HTTP server) given with each line it writes.
    @Test func recordsAtInfoAndWritesAtTheOtherHandlersLevelWithTheMetadata() {
        let log = SuiteLog()
        let output = CollectingHandler(level: .warning)
        var logger = Logger(label: "firestore") { SuiteLogHandler(label: $0, log: log, output: output) }
        #expect(logger.logLevel == .info)
        logger[metadataKey: "hb.request.id"] = "42"
        logger.debug("not taken")
        logger.info("recorded")
        logger.warning("both", metadata: ["path": "/v1/x"])

        #expect(log.entries().map(\.message) == ["recorded", "both"])
        #expect(log.entries().map(\.level) == ["info", "warning"])
        #expect(log.entries().allSatisfy { $0.source == "firestore" })
        let written = output.written
        #expect(written.map(\.message) == ["both"])
        #expect(written.first?.metadata == ["hb.request.id": "42", "path": "/v1/x"])
    }

    /// With `--verbose` the other handler takes debug lines; they are not recorded.
    @Test func aVerboseOutputTakesDebugLinesTheLogDoesNotRecord() {
        let log = SuiteLog()
        let output = CollectingHandler(level: .debug)
        let logger = Logger(label: "hearth") { SuiteLogHandler(label: $0, log: log, output: output) }
        #expect(logger.logLevel == .debug)
        logger.debug("detail")
        #expect(log.entries().isEmpty)
        #expect(output.written.map(\.message) == ["detail"])
    }
}

/// A handler that keeps what it is given to write.
private struct CollectingHandler: LogHandler {
    final class Events: Sendable {
        let events = Mutex<[(message: String, metadata: Logger.Metadata)]>([])
    }

    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    private let box = Events()

    /// What it was given to write.
    var written: [(message: String, metadata: Logger.Metadata)] { box.events.withLock { $0 } }

    init(level: Logger.Level) { logLevel = level }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        box.events.withLock { $0.append((event.message.description, event.metadata ?? [:])) }
    }
}
