import EmulatorCore

/// How the Firestore emulator's documents sit in a data folder: one space per database,
/// `firestore/<project>/<database>`, one entry per existing document keyed by its path (`rooms/a/messages/m1`)
/// holding `DocumentCodec`'s bytes. Only the current state is kept: reads at an earlier `read_time` see
/// no history from before a restart.
enum DurableDocuments {
    private static let prefix = "firestore/"

    /// The space of `database`.
    static func space(of database: DatabaseName) -> String {
        prefix + database.project + "/" + database.database
    }

    /// The change that records `document` at `path` (its removal when `nil`).
    static func change(_ path: DocumentPath, _ document: Document?, in database: DatabaseName) -> DurableChange {
        guard let document else { return .delete(space: space(of: database), key: path.description) }
        return .put(space: space(of: database), key: path.description, value: DocumentCodec.encode(document))
    }

    /// Every database `durable` holds, and the latest update time among their documents (commits made from now
    /// on must be later).
    static func load(from durable: any DurableStore) throws(DurableStoreError) -> (
        databases: [DatabaseName: DatabaseState], lastTime: Timestamp
    ) {
        var databases: [DatabaseName: DatabaseState] = [:]
        var lastTime = Timestamp(seconds: 0, nanos: 0)
        for space in try durable.spaces(prefix: prefix) {
            let parts = space.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw DurableStoreError("\(space): not a Firestore database's space") }
            let name = DatabaseName(project: String(parts[0]), database: String(parts[1]))
            let database = DatabaseState(name: name)
            do {
                try durable.scan(space) { key, bytes in
                    let path = DocumentPath(segments: key.split(separator: "/", omittingEmptySubsequences: false).map(String.init))
                    guard path.isDocument else { throw DocumentCodec.Corrupt() }
                    let document = try DocumentCodec.decode(bytes, path: path)
                    database.record(document, at: path, time: document.updateTime, horizon: document.updateTime)
                    if document.updateTime > lastTime { lastTime = document.updateTime }
                }
            } catch let error as DurableStoreError {
                throw error
            } catch {
                throw DurableStoreError("\(space): \(error)")
            }
            databases[name] = database
        }
        return (databases, lastTime)
    }
}
