import ArgumentParser
import Foundation
import UnixSignals
import Suite

/// `hearth start`: runs the suite until SIGINT or SIGTERM.
struct Start: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Start the emulators and run until interrupted (SIGINT/SIGTERM stop them cleanly).")

    @OptionGroup var options: SuiteOptions

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let suite = try await options.startSuite(messages: .standardOutput)
        FileHandle.standardOutput.write(Data((suite.readyTable + "\n").utf8))
        for await _ in signals { break }
        await suite.stop()
    }
}
