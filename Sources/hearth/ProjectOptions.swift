import ArgumentParser
import EmulatorCore
import Foundation

/// The options that say which project and config a command works with (`start`, `exec`, `export`).
struct ProjectOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Project id (default: from the config, else demo-hearth).", valueName: "id"))
    var project: String?

    @Option(name: .long, help: ArgumentHelp("Config file (default: emulator.json, else firebase.json).", valueName: "file"))
    var config: String?

    /// The config file these options select, read from the working directory (the project not yet applied).
    func loadConfig() throws(ConfigError) -> SuiteConfig {
        try SuiteConfig.load(directory: FileManager.default.currentDirectoryPath, configFile: config)
    }

    /// The project id: `--project`, else the config's.
    func projectID() throws(ConfigError) -> String {
        if let project { return project }
        return try loadConfig().projectID
    }
}
