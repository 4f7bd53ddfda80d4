import ArgumentParser
import EmulatorCore
import Foundation
import Logging
import Suite

/// The options `start` and `exec` share.
struct SuiteOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Emulators to start, comma-separated (auth, firestore, database, storage).", valueName: "names"))
    var only: [String] = []

    @OptionGroup var projectOptions: ProjectOptions

    @Option(name: .long, help: ArgumentHelp("Host every emulator listens on (default 127.0.0.1, and ::1 beside it).", valueName: "host"))
    var host: String?

    @Option(name: .long, help: ArgumentHelp("Port of one emulator, e.g. auth=0 (0 picks a free port). Repeatable.", valueName: "name=port"))
    var port: [String] = []

    @Option(
        name: .customLong("data-dir"),
        help: ArgumentHelp(
            "Keep every emulator's data in DIR across runs (SQLite; survives kill -9). One hearth per DIR.",
            valueName: "dir"))
    var dataDirectory: String?

    @Option(
        name: .customLong("import"),
        help: ArgumentHelp(
            "Import data at start from an export folder (or a production Firestore export, or a folder of Realtime Database .json files).",
            valueName: "dir"))
    var importFolder: String?

    @Option(
        name: .customLong("export-on-exit"),
        help: ArgumentHelp(
            "Export the data to DIR when the emulators stop (SIGINT/SIGTERM/SIGHUP, or the end of exec); without DIR, to the --import folder.",
            valueName: "dir"))
    var exportOnExit: String?

    /// A bare `--export-on-exit` (see `Hearth.main()`): export to the import folder.
    @Flag(name: .customLong("export-on-exit-to-import"), help: .hidden)
    var exportOnExitToImport = false

    @Flag(
        name: .customLong("strict-indexes"),
        help: ArgumentHelp(
            "Refuse queries production would refuse for a missing index: a Firestore composite index "
                + "(firestore.indexes.json) or a Realtime Database .indexOn, with production's errors."))
    var strictIndexes = false

    @Flag(name: .long, help: "Log each request and more detail to standard error.")
    var verbose = false

    /// The config these options select, with the options applied; `ui`: whether the command serves the
    /// Emulator UI (unless the config disables it).
    func resolvedConfig(ui: Bool) throws(ConfigError) -> SuiteConfig {
        var config = try projectOptions.loadConfig()
        try config.apply(only: only.isEmpty ? nil : only, project: projectOptions.project, host: host, ports: port, ui: ui)
        if let dataDirectory { config.dataDirectory = dataDirectory }
        if strictIndexes { config.strictIndexes = true }
        return config
    }

    /// A logger on standard error (warnings, or everything with `--verbose`) and into `logs` (info and above,
    /// for the Emulator UI's Logs page).
    func logger(into logs: SuiteLog) -> Logger {
        Logger(label: "hearth") { label in
            var standardError = StreamLogHandler.standardError(label: label)
            standardError.logLevel = verbose ? .debug : .warning
            return SuiteLogHandler(label: label, log: logs, output: standardError)
        }
    }

    /// The folder to import at start and the one to export to on exit, from these options and the config, as
    /// the official CLI settles them: `--export-on-exit` without a folder means the import folder (and needs
    /// one), and an import folder that does not exist yet is skipped when it is also the export folder (a
    /// first run that creates it).
    func dataFolders(config: SuiteConfig) throws(ConfigError) -> (import: String?, exportOnExit: String?) {
        var importFolder = importFolder ?? config.importFolder
        var exportFolder = exportOnExit ?? (exportOnExitToImport ? "" : config.exportOnExit)
        if exportFolder == "" {
            guard let importFolder else {
                throw ConfigError(
                    "\"--export-on-exit\" must be used with \"--import\" or provide a dir directly to \"--export-on-exit [dir]\"")
            }
            exportFolder = importFolder
        }
        if let exportFolder {
            do {
                try Suite.checkExportTarget(exportFolder)
            } catch {
                throw ConfigError("--export-on-exit: \(error.message)")
            }
            if let folder = importFolder, folder == exportFolder, !FileManager.default.fileExists(atPath: folder) {
                importFolder = nil
            }
        }
        return (importFolder, exportFolder)
    }

    /// Builds the suite (with the Emulator UI if `ui`), imports `--import`, and starts it; or prints one line
    /// naming the cause and exits non-zero. Messages for the developer (email links, SMS codes) and progress
    /// go to `messages`. Returns the suite and the folder to export to when it stops.
    func startSuite(messages: FileHandle, ui: Bool) async throws -> (suite: Suite, exportOnExit: String?) {
        let config: SuiteConfig
        let folders: (import: String?, exportOnExit: String?)
        do {
            config = try resolvedConfig(ui: ui)
            folders = try dataFolders(config: config)
        } catch {
            throw CleanExit.failure("hearth: \(error.message)")
        }
        MallocTuning.apply()
        DescriptorLimit.raise()
        // A data folder that already holds data is the newer state: importing over it would undo every write
        // since the import that seeded it. The import seeds a new folder only.
        var importFolder = folders.import
        if let folder = importFolder, let data = config.dataDirectory, Suite.dataDirectoryHoldsData(data) {
            messages.write(Data("Skipping the import of \(folder): the data directory \(data) already holds data (remove it to import again)\n".utf8))
            importFolder = nil
        }
        let suite: Suite
        do {
            let logs = SuiteLog()
            suite = try Suite(config: config, logger: logger(into: logs), logs: logs) { message in
                messages.write(Data((message + "\n").utf8))
            }
        } catch {
            throw CleanExit.failure("hearth: \(error)")
        }
        if let importFolder {
            do {
                let job = try suite.importData(from: importFolder)
                try await TransferDisplay(transfer: job.transfer, output: messages).show { try await job.run() }
            } catch {
                throw CleanExit.failure("hearth: \(error)")
            }
        }
        do {
            try await suite.start()
        } catch {
            throw CleanExit.failure("hearth: \(error)")
        }
        return (suite, folders.exportOnExit)
    }
}

/// Ends the program with one message on standard error and exit code 1.
enum CleanExit {
    static func failure(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        return ExitCode(1)
    }
}
