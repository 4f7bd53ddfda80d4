import ArgumentParser
import Foundation
import Synchronization
import UnixSignals
import Suite

/// `hearth exec -- COMMAND`: runs COMMAND against a fresh suite and exits with its code.
struct Exec: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Start the emulators, run a command with the emulator environment, stop, exit with its code.",
        discussion: """
            COMMAND gets FIREBASE_AUTH_EMULATOR_HOST, FIRESTORE_EMULATOR_HOST, FIREBASE_DATABASE_EMULATOR_HOST, \
            FIREBASE_STORAGE_EMULATOR_HOST, STORAGE_EMULATOR_HOST, FIREBASE_EMULATOR_HUB, GCLOUD_PROJECT and \
            FIREBASE_CONFIG for the emulators that run. The exit code is COMMAND's (128+N if signal N ended it). \
            With --export-on-exit the data is exported after COMMAND, whatever its exit code.
            """)

    @OptionGroup var options: SuiteOptions

    @Flag(name: .long, help: "Also serve the Emulator UI (off by default in exec, as in firebase-tools).")
    var ui = false

    @Argument(parsing: .postTerminator, help: ArgumentHelp("The command and its arguments, after --.", valueName: "command"))
    var command: [String] = []

    func validate() throws {
        guard !command.isEmpty else { throw ValidationError("missing COMMAND: hearth exec [options] -- COMMAND [ARGS...]") }
    }

    func run() async throws {
        let running = RunningChild()
        let signals = await ShutdownSignals { running.send($0.rawValue) }
        let (suite, exportFolder) = try await options.startSuite(messages: .standardError, ui: ui)
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
        running.set(child)
        let code = await child.exitCode()
        running.set(nil)
        // Whatever COMMAND's outcome; a signal now abandons the export.
        if let exportFolder { await exportOnExit(suite, to: exportFolder, signals: signals, output: .standardError) }
        await suite.stop()
        if code != 0 { throw ExitCode(code) }
    }
}

/// The command's process while it runs: where exec forwards the signals it gets. Signals that come before
/// the command starts are handed to it when it does.
private final class RunningChild: Sendable {
    private let state = Mutex<(child: ChildProcess?, pending: [Int32])>((nil, []))

    func set(_ process: ChildProcess?) {
        let pending = state.withLock { state -> [Int32] in
            state.child = process
            defer { state.pending = [] }
            return process == nil ? [] : state.pending
        }
        for signal in pending { process?.send(signal) }
    }

    func send(_ signal: Int32) {
        let child = state.withLock { state -> ChildProcess? in
            if state.child == nil { state.pending.append(signal) }
            return state.child
        }
        child?.send(signal)
    }
}
