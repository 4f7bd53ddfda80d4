import Synchronization

/// Rules loaded through an emulator's API rather than from its rules file, as a data folder (`--data-dir`)
/// keeps them, so that a restart brings them back. Each is kept with the text the rules file had when they
/// were loaded: if the developer edited the file while the suite was stopped, the file wins at start, as it
/// would have won had the suite been running.
public struct KeptRules: Sendable, Equatable {
    /// The rules files as loaded: name and content.
    public var files: [File]
    /// What the emulator's rules files held when these rules were loaded (`nil`: it had none).
    public var fileText: String?

    /// One file of rules.
    public struct File: Sendable, Equatable {
        /// Its name, for diagnostics.
        public var name: String
        /// Its text.
        public var content: String
        /// What its rules are for, when the emulator takes several files (a Storage bucket).
        public var resource: String?

        /// A file named `name` holding `content` (for `resource`).
        public init(name: String, content: String, resource: String? = nil) {
            self.name = name
            self.content = content
            self.resource = resource
        }
    }

    /// Rules of `files`, loaded while the rules file held `fileText`.
    public init(files: [File], fileText: String?) {
        self.files = files
        self.fileText = fileText
    }

    /// Whether to bring these rules back now that the rules file holds `currentFileText`.
    public func applies(withFileText currentFileText: String?) -> Bool {
        fileText == nil || fileText == currentFileText
    }

    /// The change that keeps these rules as the entry `key` of `space`.
    public func change(space: String, key: String) -> DurableChange {
        let json: JSONValue = [
            "files": .array(files.map {
                ["name": .string($0.name), "content": .string($0.content), "resource": $0.resource.map(JSONValue.string) ?? .null]
            }),
            "fileText": fileText.map(JSONValue.string) ?? .null,
        ]
        return .put(space: space, key: key, value: Array(json.serialized().utf8))
    }

    /// The rules kept in `space`, by key.
    public static func all(in durable: any DurableStore, space: String) throws(DurableStoreError) -> [String: KeptRules] {
        var result: [String: KeptRules] = [:]
        do {
            try durable.scan(space) { key, bytes in
                let json = try JSONValue.parse(String(decoding: bytes, as: UTF8.self))
                guard let files = json["files"]?.arrayValue else { throw DurableStoreError("\(space)/\(key): not rules") }
                result[key] = KeptRules(
                    files: try files.map { file throws(DurableStoreError) in
                        guard let name = file["name"]?.stringValue, let content = file["content"]?.stringValue else {
                            throw DurableStoreError("\(space)/\(key): not rules")
                        }
                        return File(name: name, content: content, resource: file["resource"]?.stringValue)
                    },
                    fileText: json["fileText"]?.stringValue)
            }
        } catch let error as DurableStoreError {
            throw error
        } catch {
            throw DurableStoreError("\(space): \(error)")
        }
        return result
    }
}

/// Where an emulator keeps the rules loaded through its API: the entries of one space of the data folder
/// (`durable`), one per key (a project, a namespace, or the one set a load replaces whole). Firestore, Storage
/// and the Realtime Database load, keep and bring back their rules through it.
public final class KeptRulesSpace: Sendable {
    private let durable: (any DurableStore)?
    private let space: String
    /// Held while a load is kept and put in force: the rules kept are the rules in force.
    private let loading = Mutex(())

    /// The rules kept in `space` of `durable`; without a data folder nothing is kept.
    public init(space: String, durable: (any DurableStore)?) {
        self.space = space
        self.durable = durable
    }

    /// Keeps `rules` as `key`'s (when `keep`: they compiled, and there is a data folder), then runs `apply`,
    /// which puts them in force; one load at a time. Throws if they cannot be kept (nothing is applied).
    public func load<Applied>(_ rules: KeptRules, as key: String, keep: Bool = true, apply: () -> Applied) throws(DurableStoreError)
        -> Applied
    {
        try loading.withLock { _ throws(DurableStoreError) -> Applied in
            if keep, let durable { try durable.write([rules.change(space: space, key: key)]) }
            return apply()
        }
    }

    /// The rules to bring back at start, by key: each key's kept rules unless the rules file that governs
    /// it changed since they were loaded (`fileText`: that file's text now, `nil` without one).
    public func restorable(fileText: (String) -> String?) throws(DurableStoreError) -> [(key: String, rules: KeptRules)] {
        guard let durable else { return [] }
        return try KeptRules.all(in: durable, space: space)
            .filter { $0.value.applies(withFileText: fileText($0.key)) }
            .map { (key: $0.key, rules: $0.value) }
            .sorted { $0.key < $1.key }
    }
}
