import ArgumentParser
import Foundation
import Suite

/// `hearth start`: runs the suite until SIGINT, SIGTERM or SIGHUP.
struct Start: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Start the emulators and run until interrupted (SIGINT/SIGTERM/SIGHUP stop them cleanly).",
        discussion: """
            With --export-on-exit, the first signal exports the data before the emulators stop; a second one \
            abandons the export (the previous export stays) and exits. The Emulator UI is served on port 4000 \
            (--port ui=PORT) unless the config sets "ui": {"enabled": false}.
            """)

    @OptionGroup var options: SuiteOptions

    func run() async throws {
        let signals = await ShutdownSignals()
        let (suite, exportFolder) = try await options.startSuite(messages: .standardOutput, ui: true)
        FileHandle.standardOutput.write(Data((suite.readyTable + "\n").utf8))
        await signals.wait(for: 1)
        if let exportFolder { await exportOnExit(suite, to: exportFolder, signals: signals, output: .standardOutput) }
        await suite.stop()
    }
}
