import DatabaseRules
import DatabaseTree
import EmulatorCore
import Logging
import Synchronization

/// Every database of the emulator by namespace, each created on first use. A namespace starts with the
/// rules configured for it (the rules file serves the project's default database, `<project>-default-rtdb`,
/// and the instances named in the config), else with open rules, as the official emulator's.
final class Databases: Sendable {
    /// The namespace of requests that name none: `<project>-default-rtdb`.
    let defaultNamespace: String
    private let clock: any EmulatorClock
    private let logger: Logger
    private let databases = Mutex<[String: Database]>([:])
    private let watched: (files: WatchedFiles, namespaces: [[String]])?
    private let durable: (any DurableStore)?
    /// Where rules loaded through the API (`PUT /.settings/rules.json`) are kept, by namespace.
    private let kept: KeptRulesSpace
    /// Where every rules decision is recorded, if anywhere.
    private let requests: RequestLog?

    /// The databases of `projectID`; `rulesFiles` maps each rules file to the namespaces it governs. With
    /// `durable`, the namespaces it holds come back with their trees, and every write is recorded there.
    init(
        projectID: String, rulesFiles: [(path: String, namespaces: [String])], clock: any EmulatorClock, logger: Logger,
        durable: (any DurableStore)? = nil, requests: RequestLog? = nil
    ) throws {
        self.requests = requests
        defaultNamespace = SuiteConfig.defaultDatabaseNamespace(of: projectID)
        self.clock = clock
        self.logger = logger
        self.durable = durable
        kept = KeptRulesSpace(space: "database-rules", durable: durable)
        if let durable {
            var loaded: [String: Database] = [:]
            for namespace in try DatabaseJournal.namespaces(in: durable) {
                let (journal, root) = try DatabaseJournal.open(namespace, in: durable)
                loaded[namespace] = Database(
                    name: namespace, rules: .open, clock: clock, root: root, journal: journal, requests: requests)
            }
            databases.withLock { $0 = loaded }
        }
        guard !rulesFiles.isEmpty else {
            watched = nil
            try restoreKeptRules()
            return
        }
        let files: WatchedFiles
        do {
            files = try WatchedFiles(paths: rulesFiles.map(\.path))
        } catch {
            throw DatabaseRulesFileError(path: error.path, message: "it cannot be read")
        }
        watched = (files, rulesFiles.map(\.namespaces))
        for (index, text) in files.texts.enumerated() {
            let rules: DatabaseRuleSet
            do {
                rules = try DatabaseRuleSet(source: text)
            } catch {
                throw DatabaseRulesFileError(path: files.paths[index], message: error.message)
            }
            for namespace in rulesFiles[index].namespaces { database(namespace).setRules(rules) }
        }
        try restoreKeptRules()
        files.watch { [weak self] texts in self?.reload(texts) }
    }

    /// The database named `namespace` (created empty on first use).
    func database(_ namespace: String) -> Database {
        databases.withLock { databases in
            if let database = databases[namespace] { return database }
            let database = Database(
                name: namespace, rules: .open, clock: clock, journal: durable.map { DatabaseJournal(empty: namespace, in: $0) },
                requests: requests)
            databases[namespace] = database
            return database
        }
    }

    /// The namespace a request names: `ns=` (`requested`), else a production-style host
    /// (`<ns>.firebaseio.com`, `<ns>.<region>.firebasedatabase.app`), else the default. It must be 1 to 100
    /// ASCII letters, digits, `-` and `_` (production's instance names are DNS labels; `..`, `%00` or a
    /// slash never name one): otherwise `.invalid`, and no database is made.
    func namespace(requested: String?, host: String?) throws(DatabaseError) -> String {
        let namespace = requested ?? Self.namespace(fromHost: host) ?? defaultNamespace
        guard (1...100).contains(namespace.utf8.count),
            namespace.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "-" || $0 == "_") })
        else {
            throw .invalid("Invalid namespace '\(namespace.prefix(100))': a database name is 1 to 100 letters, digits, '-' and '_'.")
        }
        return namespace
    }

    /// The namespace in a production-style host (`<ns>.firebaseio.com`, `<ns>.<region>.firebasedatabase.app`).
    static func namespace(fromHost host: String?) -> String? {
        guard let host, let dot = host.firstIndex(of: ".") else { return nil }
        let domain = host[host.index(after: dot)...]
        guard domain.hasPrefix("firebaseio.com") || domain.hasSuffix("firebasedatabase.app") else { return nil }
        return String(host[..<dot])
    }

    /// Every namespace in use, sorted.
    var namespaces: [String] { databases.withLock { $0.keys.sorted() } }

    /// Every database in use.
    var all: [Database] { databases.withLock { Array($0.values) } }

    /// Every namespace's tree now (persistent trees: O(namespaces)).
    func checkpoint() -> [String: DataNode] {
        Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0.root) })
    }

    /// Brings every namespace back to its tree in `trees` (empty if it has none); rules stay, listeners see
    /// the changes.
    func restore(_ trees: [String: DataNode]) throws(DatabaseError) {
        for database in all where trees[database.name] == nil { try database.replaceRoot(.empty) }
        for (namespace, root) in trees { try database(namespace).replaceRoot(root) }
    }

    /// Empties every database (rules stay); listeners see the data go.
    func reset() throws(DatabaseError) {
        for database in all { try database.write(.set(.root, .null), auth: .admin) }
    }

    /// Makes `source` the rules of `namespace` (the API's `PUT /.settings/rules.json`), kept in the data folder
    /// when there is one. Throws `DatabaseRulesError` if it does not parse, `DurableStoreError` if it cannot be
    /// kept (the rules in force then stay).
    func loadRules(_ source: String, namespace: String) throws {
        let rules = try DatabaseRuleSet(source: source)
        let file = KeptRules(files: [KeptRules.File(name: "database.rules.json", content: source)], fileText: fileText(of: namespace))
        try kept.load(file, as: namespace) { database(namespace).setRules(rules) }
    }

    /// The text of the rules file that governs `namespace`, if one does.
    private func fileText(of namespace: String) -> String? {
        guard let watched, let index = watched.namespaces.firstIndex(where: { $0.contains(namespace) }) else { return nil }
        return watched.files.texts[index]
    }

    /// Brings back the rules loaded through the API before a restart, except where the rules file changed since.
    private func restoreKeptRules() throws {
        for (namespace, rules) in try kept.restorable(fileText: fileText(of:)) {
            guard let source = rules.files.first?.content else { continue }
            database(namespace).setRules(try DatabaseRuleSet(source: source))
        }
    }

    /// Loads the rules files' new `texts` when one changed; a file that no longer parses is reported and
    /// the rules in force stay.
    private func reload(_ texts: [String]) {
        guard let watched else { return }
        for (index, text) in texts.enumerated() {
            do {
                let rules = try DatabaseRuleSet(source: text)
                for namespace in watched.namespaces[index] { database(namespace).setRules(rules) }
                logger.info("database: rules reloaded from \(watched.files.paths[index])")
            } catch {
                logger.warning("database: \(watched.files.paths[index]): \(error.message); the rules in force stay")
            }
        }
    }
}

/// A database rules file that cannot be read or does not parse.
public struct DatabaseRulesFileError: Error, CustomStringConvertible {
    /// The file.
    public var path: String
    /// What is wrong with it.
    public var message: String

    /// `database: database.rules.json: Line 3: ...`.
    public var description: String { "database: \(path): \(message)" }
}
