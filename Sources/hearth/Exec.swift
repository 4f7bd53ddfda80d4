import ArgumentParser
import Foundation
import UnixSignals
import Suite

/// `hearth exec -- COMMAND`: runs COMMAND against a fresh suite and exits with its code.
struct Exec: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Start the emulators, run a command with the emulator environment, stop, exit with its code.",
        discussion: """
            COMMAND gets FIREBASE_AUTH_EMULATOR_HOST, FIRESTORE_EMULATOR_HOST, FIREBASE_DATABASE_EMULATOR_HOST, \
            FIREBASE_STORAGE_EMULATOR_HOST, STORAGE_EMULATOR_HOST, FIREBASE_EMULATOR_HUB, GCLOUD_PROJECT and \
            FIREBASE_CONFIG for the emulators that run. The exit code is COMMAND's (128+N if signal N ended it).
            """)

    @OptionGroup var options: SuiteOptions

    @Argument(parsing: .postTerminator, help: ArgumentHelp("The command and its arguments, after --.", valueName: "command"))
    var command: [String] = []

    func validate() throws {
        guard !command.isEmpty else { throw ValidationError("missing COMMAND: hearth exec [options] -- COMMAND [ARGS...]") }
    }

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let suite = try await options.startSuite(messages: .standardError)
        FileHandle.standardError.write(Data((suite.readyTable + "\n").utf8))
        let environment = ProcessInfo.processInfo.environment.merging(suite.environment) { _, new in new }
        let child: ChildProcess
        do {
            child = try ChildProcess(arguments: command, environment: environment)
        } catch {
            await suite.stop()
            FileHandle.standardError.write(Data("hearth: cannot run \(command[0]): \(error)\n".utf8))
            throw ExitCode(127)
        }
        let forwarding = Task {
            for await signal in signals { child.send(signal.rawValue) }
        }
        let code = await child.exitCode()
        forwarding.cancel()
        await suite.stop()
        if code != 0 { throw ExitCode(code) }
    }
}
