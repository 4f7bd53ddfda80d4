import EmulatorCore
import Logging
import Synchronization

/// The indexes the emulator holds queries to: the automatic single-field indexes, and what a
/// `firestore.indexes.json` declares for the suite's project (read again when it changes). Each query is
/// checked before it runs (`check`): an index it needs that is not there is remembered (`missing`, the
/// entries to paste into `firestore.indexes.json`) and, in strict mode (`--strict-indexes`), refuses the
/// query with production's `FAILED_PRECONDITION` and console link. Outside strict mode the query runs, as it
/// does in the official emulator, and a warning names the index once.
final class FirestoreIndexes: Sendable {
    /// Whether a query without its index is refused.
    let strict: Bool
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        /// The project the file's indexes belong to, and the file.
        var project: String?
        var watched: WatchedFiles?
        var definitions = IndexDefinitions()
        /// The indexes queries needed and lacked, in the order first needed.
        var missing: [(project: String, index: MissingIndex)] = []
        var known: Set<MissingIndex> = []
    }

    /// No indexes file; strict or not.
    init(strict: Bool = false, logger: Logger = Logger(label: "hearth.firestore")) {
        self.strict = strict
        self.logger = logger
    }

    /// Reads `path` (a `firestore.indexes.json`) as `project`'s indexes and reads it again when it changes (a
    /// file that no longer reads is reported and the indexes in force stay). Throws `ConfigError` naming the
    /// file when it cannot be read or is not an indexes file.
    func watch(file path: String, project: String) throws(ConfigError) {
        let watched: WatchedFiles
        do {
            watched = try WatchedFiles(paths: [path])
        } catch {
            throw ConfigError("firestore: \(path): it cannot be read")
        }
        let definitions: IndexDefinitions
        do {
            definitions = try IndexDefinitions(json: watched.texts[0])
        } catch {
            throw ConfigError("firestore: \(path): \(error.message)")
        }
        state.withLock {
            $0.project = project
            $0.watched = watched
            $0.definitions = definitions
        }
        watched.watch { [weak self] texts in self?.reload(texts[0], from: path) }
    }

    private func reload(_ text: String, from path: String) {
        do {
            let definitions = try IndexDefinitions(json: text)
            state.withLock { $0.definitions = definitions }
            logger.info("firestore: change detected in \(path), indexes updated")
        } catch {
            logger.error("firestore: \(path) cannot be read, keeping the previous indexes: \(error.message)")
        }
    }

    /// Stops watching the indexes file.
    func stopWatching() {
        state.withLock { $0.watched?.stop() }
    }

    /// Checks that the indexes serve `query` on `database` (see the type's comment).
    func check(_ query: StructuredQuery, in database: DatabaseName) throws(FirestoreError) {
        let definitions = state.withLock { $0.project == database.project ? $0.definitions : IndexDefinitions() }
        guard let missing = query.missingIndex(in: definitions) else { return }
        let first = state.withLock { state in
            guard state.known.insert(missing).inserted else { return false }
            state.missing.append((database.project, missing))
            return true
        }
        if strict { throw FirestoreError(.failedPrecondition, missing.message(in: database)) }
        if first {
            logger.warning(
                "firestore: a query needs an index that is not declared (production refuses it; --strict-indexes does too): \(missing.json.entry.serialized())")
        }
    }

    /// What queries of `project` needed and lacked, as a `firestore.indexes.json` of those entries only
    /// (`{"indexes": [...], "fieldOverrides": [...]}`).
    func missing(project: String) -> JSONValue {
        let entries = state.withLock { $0.missing.filter { $0.project == project }.map(\.index.json) }
        return [
            "indexes": .array(entries.filter { $0.key == "indexes" }.map(\.entry)),
            "fieldOverrides": .array(entries.filter { $0.key == "fieldOverrides" }.map(\.entry)),
        ]
    }
}
