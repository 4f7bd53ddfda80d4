import Foundation

extension SuiteConfig {
    /// Reads the config for a project folder: `configFile` if given, else `emulator.json`, else the
    /// `emulators` section of `firebase.json`, else defaults.
    public static func load(directory: String, configFile: String? = nil) throws(ConfigError) -> SuiteConfig {
        let fileManager = FileManager.default
        if let configFile {
            let path = configFile.hasPrefix("/") ? configFile : directory + "/" + configFile
            guard fileManager.fileExists(atPath: path) else {
                throw ConfigError("\(configFile): no such config file")
            }
            let name = (path as NSString).lastPathComponent
            return name == "firebase.json" ? try parseFirebaseJSON(at: path) : try parseEmulatorJSON(at: path)
        }
        let emulatorJSON = directory + "/emulator.json"
        if fileManager.fileExists(atPath: emulatorJSON) { return try parseEmulatorJSON(at: emulatorJSON) }
        let firebaseJSON = directory + "/firebase.json"
        if fileManager.fileExists(atPath: firebaseJSON) { return try parseFirebaseJSON(at: firebaseJSON) }
        return SuiteConfig()
    }

    /// Parses Hearth's own `emulator.json` (see design §3); unknown keys and bad values are errors.
    public static func parseEmulatorJSON(at path: String) throws(ConfigError) -> SuiteConfig {
        let file = (path as NSString).lastPathComponent
        let root = try readObject(at: path, file: file)
        var config = SuiteConfig(sourceFile: path)
        for (key, value) in root {
            switch key {
            case "projectId": config.projectID = try projectID(value, at: "\(file): projectId")
            case "host": config.host = try host(value, at: "\(file): host")
            case "dataDir":
                if value != .null { config.dataDirectory = config.resolve(try string(value, at: "\(file): dataDir")) }
            case "import":
                if value != .null { config.importFolder = config.resolve(try string(value, at: "\(file): import")) }
            case "exportOnExit":
                switch value {
                case .null, .bool(false): break
                case .bool(true): config.exportOnExit = ""
                default: config.exportOnExit = config.resolve(try string(value, at: "\(file): exportOnExit"))
                }
            case "strictIndexes":
                guard let strict = value.boolValue else {
                    throw ConfigError("\(file): strictIndexes: expected a boolean, got \(value.typeName)")
                }
                config.strictIndexes = strict
            case "emulators":
                guard let emulators = value.objectValue else {
                    throw ConfigError("\(file): emulators: expected an object, got \(value.typeName)")
                }
                for (name, settings) in emulators {
                    guard let emulator = EmulatorName(rawValue: name) else {
                        throw ConfigError("\(file): emulators.\(name): unknown emulator (known: \(knownList))")
                    }
                    let parsed = try emulatorSettings(settings, of: emulator, at: "\(file): emulators.\(name)", strict: true)
                    if emulator == .ui, settings["enabled"]?.boolValue == false {
                        config.uiEnabled = false
                        continue
                    }
                    config.emulators[emulator] = parsed
                }
            default:
                throw ConfigError(
                    "\(file): \(key): unknown key (known: projectId, host, emulators, dataDir, import, exportOnExit, strictIndexes)")
            }
        }
        return config
    }

    /// Reads the `emulators` section of a `firebase.json` and its rules paths; other products' keys are ignored,
    /// as are emulators Hearth does not serve (functions, hosting, ...). The project comes from `.firebaserc`.
    public static func parseFirebaseJSON(at path: String) throws(ConfigError) -> SuiteConfig {
        let file = (path as NSString).lastPathComponent
        let root = try readObject(at: path, file: file)
        var config = SuiteConfig(sourceFile: path)
        let folder = (path as NSString).deletingLastPathComponent
        if let rc = try? readObject(at: folder + "/.firebaserc", file: ".firebaserc"),
            let project = rc["projects"]?["default"]?.stringValue
        {
            config.projectID = project
        }
        guard let emulators = root["emulators"] else { return config }
        guard let section = emulators.objectValue else {
            throw ConfigError("\(file): emulators: expected an object, got \(emulators.typeName)")
        }
        config.notEmulated = section.keys.filter { SuiteConfig.unemulated.contains($0) }.sorted()
        for (name, settings) in section {
            guard let emulator = EmulatorName(rawValue: name), settings.objectValue != nil else { continue }
            var parsed = try emulatorSettings(settings, of: emulator, at: "\(file): emulators.\(name)", strict: false)
            parsed.rules = rulesPath(in: root, for: emulator)
            if emulator == .firestore { parsed.indexes = firestoreIndexesPath(in: root) }
            if emulator == .storage, parsed.bucket == nil { parsed.bucket = storageBucket(in: root) }
            if emulator == .storage, let targets = root["storage"]?.arrayValue, targets.count > 1 {
                // Several buckets, each with its rules (`[{"bucket", "rules"}, ...]`).
                for target in targets {
                    if let bucket = target["bucket"]?.stringValue, let rules = target["rules"]?.stringValue {
                        parsed.bucketRules[bucket] = rules
                    }
                }
            }
            if emulator == .ui, settings["enabled"]?.boolValue == false {
                config.uiEnabled = false
                continue
            }
            config.emulators[emulator] = parsed
        }
        return config
    }

    private static var knownList: String { known.map(\.rawValue).joined(separator: ", ") }

    private static func readObject(at path: String, file: String) throws(ConfigError) -> [String: JSONValue] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError("\(file): cannot read the file")
        }
        guard let value = try? JSONValue.parse(data) else { throw ConfigError("\(file): not valid JSON") }
        guard let object = value.objectValue else { throw ConfigError("\(file): expected a JSON object at the top") }
        return object
    }

    private static func emulatorSettings(
        _ value: JSONValue, of emulator: EmulatorName, at location: String, strict: Bool
    ) throws(ConfigError) -> EmulatorSettings {
        guard let object = value.objectValue else {
            throw ConfigError("\(location): expected an object, got \(value.typeName)")
        }
        var settings = EmulatorSettings()
        let allowed = allowedKeys(for: emulator)
        for (key, member) in object {
            switch key {
            case "port": settings.port = try port(member, at: "\(location).port")
            case "host": settings.host = try host(member, at: "\(location).host")
            case "rules" where allowed.contains("rules"):
                settings.rules = try string(member, at: "\(location).rules")
            case "indexes" where allowed.contains("indexes"):
                settings.indexes = try string(member, at: "\(location).indexes")
            case "bucket" where allowed.contains("bucket"):
                settings.bucket = try string(member, at: "\(location).bucket")
            case "maxUploadSize" where allowed.contains("maxUploadSize"):
                guard let bytes = member.intValue, bytes > 0 else {
                    throw ConfigError("\(location).maxUploadSize: expected a positive number of bytes, got \(member.serialized())")
                }
                settings.maxUploadSize = bytes
            case "buckets" where allowed.contains("buckets"):
                guard let targets = member.arrayValue else {
                    throw ConfigError("\(location).buckets: expected an array of {\"bucket\", \"rules\"}, got \(member.typeName)")
                }
                for (index, target) in targets.enumerated() {
                    let at = "\(location).buckets[\(index)]"
                    guard let bucket = target["bucket"], let rules = target["rules"] else {
                        throw ConfigError("\(at): expected {\"bucket\": ..., \"rules\": ...}")
                    }
                    settings.bucketRules[try string(bucket, at: "\(at).bucket")] = try string(rules, at: "\(at).rules")
                }
            case "enabled" where emulator == .ui:
                guard member.boolValue != nil else {
                    throw ConfigError("\(location).enabled: expected a boolean, got \(member.typeName)")
                }
            default:
                if strict {
                    let keys = (["port", "host"] + allowed).joined(separator: ", ")
                    throw ConfigError("\(location).\(key): unknown key (known: \(keys))")
                }
            }
        }
        return settings
    }

    private static func allowedKeys(for emulator: EmulatorName) -> [String] {
        switch emulator {
        case .firestore: return ["rules", "indexes"]
        case .database: return ["rules"]
        case .storage: return ["rules", "bucket", "buckets", "maxUploadSize"]
        case .ui: return ["enabled"]
        case .auth, .hub: return []
        }
    }

    private static func rulesPath(in root: [String: JSONValue], for emulator: EmulatorName) -> String? {
        let product: String
        switch emulator {
        case .firestore: product = "firestore"
        case .database: product = "database"
        case .storage: product = "storage"
        default: return nil
        }
        if let rules = root[product]?["rules"]?.stringValue { return rules }
        return root[product]?.arrayValue?.first?["rules"]?.stringValue
    }

    /// `firestore.indexes` of a `firebase.json` (or that of its first database's entry).
    private static func firestoreIndexesPath(in root: [String: JSONValue]) -> String? {
        root["firestore"]?["indexes"]?.stringValue ?? root["firestore"]?.arrayValue?.first?["indexes"]?.stringValue
    }

    private static func storageBucket(in root: [String: JSONValue]) -> String? {
        root["storage"]?.arrayValue?.first?["bucket"]?.stringValue
    }

    static func port(_ value: JSONValue, at location: String) throws(ConfigError) -> Int {
        guard let number = value.intValue, (0...65535).contains(number) else {
            throw ConfigError("\(location): expected a port number from 0 to 65535, got \(value.serialized())")
        }
        return Int(number)
    }

    static func host(_ value: JSONValue, at location: String) throws(ConfigError) -> String {
        guard let text = value.stringValue, !text.isEmpty, !text.contains(" ") else {
            throw ConfigError("\(location): expected a host name or IP address, got \(value.serialized())")
        }
        return text
    }

    static func projectID(_ value: JSONValue, at location: String) throws(ConfigError) -> String {
        guard let text = value.stringValue, isValidProjectID(text) else {
            throw ConfigError(
                "\(location): expected a project id (letters, digits, '-'), got \(value.serialized())")
        }
        return text
    }

    private static func string(_ value: JSONValue, at location: String) throws(ConfigError) -> String {
        guard let text = value.stringValue, !text.isEmpty else {
            throw ConfigError("\(location): expected a non-empty string, got \(value.serialized())")
        }
        return text
    }

    /// Whether `id` is usable as a project id: non-empty, letters, digits, `-`, `_`, `.` and `:` only.
    public static func isValidProjectID(_ id: String) -> Bool {
        !id.isEmpty && id.count <= 100
            && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.:".contains($0)) }
    }
}
