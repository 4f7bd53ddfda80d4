import ArgumentParser
import EmulatorCore
import Foundation
import Logging
import Suite

/// The options `start` and `exec` share.
struct SuiteOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Emulators to start, comma-separated (auth, firestore, database, storage).", valueName: "names"))
    var only: [String] = []

    @Option(name: .long, help: ArgumentHelp("Project id (default: from the config, else demo-hearth).", valueName: "id"))
    var project: String?

    @Option(name: .long, help: ArgumentHelp("Config file (default: emulator.json, else firebase.json).", valueName: "file"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("Host every emulator listens on (default 127.0.0.1).", valueName: "host"))
    var host: String?

    @Option(name: .long, help: ArgumentHelp("Port of one emulator, e.g. auth=0 (0 picks a free port). Repeatable.", valueName: "name=port"))
    var port: [String] = []

    @Flag(name: .long, help: "Log each request and more detail to standard error.")
    var verbose = false

    /// The config these options select, with the options applied.
    func resolvedConfig() throws(ConfigError) -> SuiteConfig {
        var config = try SuiteConfig.load(directory: FileManager.default.currentDirectoryPath, configFile: self.config)
        try config.apply(only: only.isEmpty ? nil : only, project: project, host: host, ports: port)
        return config
    }

    /// A logger on standard error.
    var logger: Logger {
        var logger = Logger(label: "hearth") { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = verbose ? .debug : .warning
        return logger
    }

    /// Builds and starts the suite, or prints one line naming the cause and exits non-zero. Messages for the
    /// developer (email links, SMS codes) go to `messages`.
    func startSuite(messages: FileHandle) async throws -> Suite {
        let config: SuiteConfig
        do {
            config = try resolvedConfig()
        } catch {
            throw CleanExit.failure("hearth: \(error.message)")
        }
        MallocTuning.apply()
        DescriptorLimit.raise()
        let suite: Suite
        do {
            suite = try Suite(config: config, logger: logger) { message in
                messages.write(Data((message + "\n").utf8))
            }
        } catch {
            throw CleanExit.failure("hearth: \(error)")
        }
        do {
            try await suite.start()
        } catch {
            throw CleanExit.failure("hearth: \(error)")
        }
        return suite
    }
}

/// Ends the program with one message on standard error and exit code 1.
enum CleanExit {
    static func failure(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        return ExitCode(1)
    }
}
