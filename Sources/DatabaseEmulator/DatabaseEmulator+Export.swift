import DatabaseTree
import EmulatorCore
import Foundation

extension DatabaseEmulator: DataExporting {
    /// Writes `<namespace>.json` for every namespace that holds data, in export format (what
    /// `GET /.json?format=export` answers: priorities kept), as the official `database_export` folder.
    public func exportData(to folder: URL, progress: TransferProgress) async throws {
        for database in databases.all {
            let root = database.root
            guard !root.isEmpty else { continue }
            let data = Data(root.exportJSON.serialized().utf8)
            let file = folder.appendingPathComponent("\(database.name).json")
            try data.write(to: file)
            progress.add(items: 1, bytes: data.count)
        }
    }

    /// Replaces the data of each namespace named by a `<namespace>.json` in `folder` (the official
    /// `database_export`, or any folder of such files, as the official `--import` takes). Every file is read
    /// and parsed before any namespace changes.
    public func importData(from folder: URL, progress: TransferProgress) async throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        var roots: [(namespace: String, root: DataNode)] = []
        for name in names {
            let file = folder.appendingPathComponent(name)
            let namespace = String(name.dropLast(".json".count))
            do {
                _ = try databases.namespace(requested: namespace, host: nil)
            } catch {
                throw ImportError(file: file.path, "'\(namespace)' is not a database name (1 to 100 letters, digits, '-' and '_').")
            }
            guard let data = FileManager.default.contents(atPath: file.path) else {
                throw ImportError(file: file.path, "cannot be read.")
            }
            let json: JSONValue
            do {
                json = try JSONValue.parse(data)
            } catch {
                throw ImportError(file: file.path, "is not valid JSON: \(error)")
            }
            do throws(InvalidData) {
                roots.append((namespace, try DataNode(json: json)))
            } catch {
                throw ImportError(file: file.path, error.message)
            }
            progress.add(items: 1, bytes: data.count)
        }
        for (namespace, root) in roots { try databases.database(namespace).replaceRoot(root) }
    }
}

extension DatabaseEmulator: Checkpointing {
    /// Every namespace's tree (the trees are persistent: this copies nothing).
    public func checkpoint() async -> any Sendable { databases.checkpoint() }

    /// Brings every namespace back to its tree in `checkpoint`; listens (WebSocket and SSE) get the changes.
    public func restore(_ checkpoint: any Sendable) async throws {
        guard let trees = checkpoint as? [String: DataNode] else { return }
        try databases.restore(trees)
    }
}
