import Foundation

/// What `hearth start` runs: project, host, and the settings of each emulator to start.
///
/// Built from `emulator.json`, a `firebase.json` `emulators` section, or defaults, then refined by
/// command-line options (see `SuiteConfig+Loading.swift`).
public struct SuiteConfig: Sendable, Equatable {
    /// The default project id when none is configured.
    public static let defaultProjectID = "demo-hearth"
    /// The default listen host.
    public static let defaultHost = "127.0.0.1"

    /// A project's default Realtime Database namespace, as production names it: `<projectID>-default-rtdb`.
    public static func defaultDatabaseNamespace(of projectID: String) -> String { "\(projectID)-default-rtdb" }

    /// A project's default Storage bucket: `<projectID>.appspot.com`.
    public static func defaultBucket(of projectID: String) -> String { "\(projectID).appspot.com" }

    /// The project id emulators use by default.
    public var projectID: String
    /// The host every emulator listens on unless its settings say otherwise.
    public var host: String
    /// The emulators to start, keyed by name (the hub is always started).
    public var emulators: [EmulatorName: EmulatorSettings]
    /// The export folder to import at start (`import` in emulator.json), resolved against the config's folder.
    public var importFolder: String?
    /// Where to export when the suite stops (`exportOnExit` in emulator.json): a folder resolved against the
    /// config's folder, or `""` for the import folder (`"exportOnExit": true`); `nil`: no export.
    public var exportOnExit: String?
    /// The data folder that keeps every emulator's state across runs (`dataDir` in emulator.json, `--data-dir`),
    /// resolved against the config's folder; `nil`: state lives in memory only.
    public var dataDirectory: String?
    /// The file the config was read from, for messages (`nil`: defaults).
    public var sourceFile: String?
    /// Whether the config lets the Emulator UI run (`emulators.ui.enabled`, true unless set to false).
    public var uiEnabled = true
    /// Whether queries without the index production would need are refused as production refuses them
    /// (`strictIndexes` in emulator.json, `--strict-indexes`): Firestore's composite indexes, the Realtime
    /// Database's `.indexOn`.
    public var strictIndexes = false
    /// Emulators the config file sets up that Hearth does not run (`functions`, `hosting`, ...), sorted: named
    /// once at start rather than ignored in silence.
    public var notEmulated: [String] = []

    /// The Local Emulator Suite's emulators that Hearth does not run, as `firebase.json` names them.
    public static let unemulated: Set<String> = [
        "apphosting", "dataconnect", "eventarc", "extensions", "functions", "hosting", "pubsub", "tasks",
    ]

    /// Creates a config.
    public init(
        projectID: String = SuiteConfig.defaultProjectID, host: String = SuiteConfig.defaultHost,
        emulators: [EmulatorName: EmulatorSettings] = [:], sourceFile: String? = nil
    ) {
        self.projectID = projectID
        self.host = host
        self.emulators = emulators
        self.sourceFile = sourceFile
    }

    /// The emulators available in this build, started when no config names any.
    public static let available: [EmulatorName] = [.auth, .firestore, .database, .storage]

    /// The names that `--only` and config files accept.
    public static let known: [EmulatorName] = EmulatorName.allCases

    /// `path` as given in the config: absolute, or relative to the config file's folder (the working
    /// directory when the config came from defaults).
    public func resolve(_ path: String) -> String {
        guard !path.hasPrefix("/"), let sourceFile else { return path }
        let folder = (sourceFile as NSString).deletingLastPathComponent
        return folder.isEmpty ? path : (folder as NSString).appendingPathComponent(path)
    }

    /// The host and port `name` listens on.
    public func address(of name: EmulatorName) -> (host: String, port: Int) {
        let settings = emulators[name]
        return (settings?.host ?? host, settings?.port ?? name.defaultPort)
    }
}

/// The settings of one emulator.
public struct EmulatorSettings: Sendable, Equatable {
    /// The listen host (`nil`: the suite's host).
    public var host: String?
    /// The listen port; 0 picks a free one.
    public var port: Int?
    /// The rules file, relative to the config file's folder.
    public var rules: String?
    /// The indexes file (Firestore: a `firestore.indexes.json`), relative to the config file's folder.
    public var indexes: String?
    /// The default bucket (Storage).
    public var bucket: String?
    /// Buckets with rules of their own, bucket → rules file (Storage: `buckets` in emulator.json, the
    /// `storage` array of firebase.json); other buckets follow `rules`.
    public var bucketRules: [String: String] = [:]
    /// The largest object an upload may create, in bytes (Storage; `nil`: the emulator's default, 5 GiB).
    public var maxUploadSize: Int64?

    /// Creates settings.
    public init(
        host: String? = nil, port: Int? = nil, rules: String? = nil, bucket: String? = nil, bucketRules: [String: String] = [:]
    ) {
        self.host = host
        self.port = port
        self.rules = rules
        self.bucket = bucket
        self.bucketRules = bucketRules
    }
}

/// A config file or option that cannot be used; the message names the file, key and cause.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One line naming the cause.
    public var message: String

    /// Creates an error with a one-line message.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
