import Dispatch
import EmulatorCore

/// How the Firestore emulator's documents sit in a data folder: one space per database,
/// `firestore/<project>/<database>` (each percent-encoded), one entry per existing document keyed by its path
/// (`rooms/a/messages/m1`: ids hold no `/`)
/// holding `DocumentCodec`'s bytes. Only the current state is kept: reads at an earlier `read_time` see
/// no history from before a restart.
enum DurableDocuments {
    private static let prefix = "firestore/"

    /// The space of `database`.
    static func space(of database: DatabaseName) -> String {
        prefix + DurableName.segment(database.project) + "/" + DurableName.segment(database.database)
    }

    /// The change that records `document` at `path` (its removal when `nil`).
    static func change(_ path: DocumentPath, _ document: Document?, in database: DatabaseName) -> DurableChange {
        guard let document else { return .delete(space: space(of: database), key: path.description) }
        return .put(space: space(of: database), key: path.description, value: DocumentCodec.encode(document))
    }

    /// Every database `durable` holds, and the latest update time among their documents (commits made from now
    /// on must be later). Rows are decoded on other threads a batch at a time while the scan goes on, and the
    /// documents added in order, a collection's run at a time: a million documents load in about two seconds.
    static func load(from durable: any DurableStore) throws(DurableStoreError) -> (
        databases: [DatabaseName: DatabaseState], lastTime: Timestamp
    ) {
        var databases: [DatabaseName: DatabaseState] = [:]
        var lastTime = Timestamp(seconds: 0, nanos: 0)
        for space in try durable.spaces(prefix: prefix) {
            let parts = DurableName.segments(of: space.dropFirst(prefix.count))
            guard parts.count == 2 else { throw DurableStoreError("\(space): not a Firestore database's space") }
            let name = DatabaseName(project: parts[0], database: parts[1])
            let database = DatabaseState(name: name)
            var pending: [DecodedBatch] = []
            /// Adds the oldest batch once decoded.
            func addOldest() throws(DurableStoreError) {
                let documents = try pending.removeFirst().documents(in: space)
                database.load(documents)
                for document in documents where document.updateTime > lastTime { lastTime = document.updateTime }
            }
            var batch = RowBatch()
            do {
                try durable.scanBytes(space) { key, bytes in
                    batch.append(key, bytes)
                    guard batch.count == RowBatch.size else { return }
                    pending.append(DecodedBatch(batch))
                    batch = RowBatch()
                    if pending.count > 2 { try addOldest() }
                }
            } catch let error as DurableStoreError {
                throw error
            } catch {
                throw DurableStoreError("\(space): \(error)")
            }
            if batch.count > 0 { pending.append(DecodedBatch(batch)) }
            while !pending.isEmpty { try addOldest() }
            databases[name] = database
        }
        return (databases, lastTime)
    }
}

/// Rows as read from a data folder: each row's key and value end to end in one buffer, with where each ends.
private struct RowBatch: Sendable {
    static let size = 8192
    var bytes: [UInt8] = []
    var ends: [(key: Int, value: Int)] = []

    init() {
        ends.reserveCapacity(Self.size)
    }

    var count: Int { ends.count }

    mutating func append(_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: key)
        let keyEnd = bytes.count
        bytes.append(contentsOf: value)
        ends.append((keyEnd, bytes.count))
    }
}

/// A batch of rows being decoded into documents on another thread.
/// `@unchecked Sendable`: `result` is written once by the decoding thread before it signals `done`, and read
/// only after waiting for `done`.
private final class DecodedBatch: @unchecked Sendable {
    private var result: Result<[Document], DurableStoreError> = .success([])
    private let done = DispatchSemaphore(value: 0)

    init(_ rows: RowBatch) {
        DispatchQueue.global().async { [self] in
            result = Result { () throws(DurableStoreError) -> [Document] in try Self.decode(rows) }
            done.signal()
        }
    }

    /// The documents, once decoded.
    func documents(in space: String) throws(DurableStoreError) -> [Document] {
        done.wait()
        return try result.mapError { DurableStoreError("\(space): \($0.message)") }.get()
    }

    private static func decode(_ rows: RowBatch) throws(DurableStoreError) -> [Document] {
        var documents: [Document] = []
        documents.reserveCapacity(rows.count)
        let failure = rows.bytes.withUnsafeBytes { (all: UnsafeRawBufferPointer) -> DurableStoreError? in
            var start = 0
            for (keyEnd, end) in rows.ends {
                defer { start = end }
                let key = UnsafeRawBufferPointer(rebasing: all[start..<keyEnd])
                let path = DocumentPath(segments: key.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map {
                    String(decoding: $0, as: UTF8.self)
                })
                guard path.isDocument else { return DurableStoreError("\(path): not a document path") }
                do {
                    documents.append(try DocumentCodec.decode(UnsafeRawBufferPointer(rebasing: all[keyEnd..<end]), path: path))
                } catch {
                    return DurableStoreError("\(path): \(error)")
                }
            }
            return nil
        }
        if let failure { throw failure }
        return documents
    }
}
