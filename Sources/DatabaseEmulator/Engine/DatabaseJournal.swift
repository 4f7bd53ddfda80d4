import DatabaseTree
import EmulatorCore
import Foundation

/// How one namespace's tree sits in a data folder (`--data-dir`), in its space `database/<namespace>`: the
/// entry `tree` holds the tree as it was at some point (export JSON, priorities kept), and the entries
/// `write/<sequence>` the writes since, in order, each the nodes it put at each path (its keys; server values
/// already resolved), so that replaying them gives the tree every acknowledged write made.
///
/// Writes cost what they write, not what the tree holds: once the journal outgrows the tree (and 1 MiB), the
/// next write stores the whole tree instead and empties the journal, in one transaction.
struct DatabaseJournal: Sendable {
    private let durable: any DurableStore
    private let space: String
    private var next = 0
    private var journalBytes = 0
    private var treeBytes = 0

    private static let prefix = "database/"
    private static let treeKey = "tree"
    private static let writePrefix = "write/"

    /// The namespaces `durable` holds trees of.
    static func namespaces(in durable: any DurableStore) throws(DurableStoreError) -> [String] {
        try durable.spaces(prefix: prefix).map { String($0.dropFirst(prefix.count)) }
    }

    /// The journal of `namespace` in `durable` and the tree it holds (empty when it holds none).
    static func open(_ namespace: String, in durable: any DurableStore) throws(DurableStoreError) -> (DatabaseJournal, DataNode) {
        var journal = DatabaseJournal(durable: durable, space: prefix + namespace)
        var root = DataNode.empty
        do {
            try durable.scan(journal.space) { key, bytes in
                let json = try JSONValue.parse(Data(bytes))
                if key == treeKey {
                    root = try DataNode(json: json)
                    journal.treeBytes = bytes.count
                    return
                }
                guard key.hasPrefix(writePrefix), let sequence = Int(key.dropFirst(writePrefix.count)),
                    case .array(let writes) = json
                else { throw DurableStoreError("unexpected entry '\(key)'") }
                for write in writes {
                    guard case .array(let pair) = write, pair.count == 2, case .array(let keys) = pair[0] else {
                        throw DurableStoreError("\(key): not a write")
                    }
                    let path = keys.compactMap(\.stringValue)
                    guard path.count == keys.count else { throw DurableStoreError("\(key): not a write") }
                    root.set(try DataNode(json: pair[1]), at: DatabasePath(keys: path))
                }
                journal.next = sequence + 1
                journal.journalBytes += bytes.count
            }
        } catch let error as DurableStoreError {
            throw DurableStoreError("\(journal.space): \(error.message)")
        } catch let error as InvalidData {
            throw DurableStoreError("\(journal.space): \(error.message)")
        } catch {
            throw DurableStoreError("\(journal.space): \(error)")
        }
        return (journal, root)
    }

    /// The journal of a namespace `durable` holds nothing of yet.
    init(empty namespace: String, in durable: any DurableStore) {
        self.init(durable: durable, space: Self.prefix + namespace)
    }

    private init(durable: any DurableStore, space: String) {
        self.durable = durable
        self.space = space
    }

    /// Records a write that put each node at its path and left the tree as `root`: as a journal entry, or, when
    /// the journal has outgrown the tree, as the tree itself.
    mutating func record(_ writes: [(path: DatabasePath, node: DataNode)], root: DataNode) throws(DatabaseError) {
        // Paths as their keys: a key may hold what a path's text would not split back into the same keys.
        let entry = Array(
            JSONValue.array(writes.map { .array([.array($0.path.keys.map(JSONValue.string)), $0.node.exportJSON]) }).serialized().utf8)
        if journalBytes + entry.count > max(1 << 20, treeBytes) {
            try replace(root)
            return
        }
        try store([.put(space: space, key: Self.writePrefix + Self.sequenceKey(next), value: entry)])
        next += 1
        journalBytes += entry.count
    }

    /// Records the whole tree (an import, a checkpoint's restore, a compaction), dropping the journal.
    mutating func replace(_ root: DataNode) throws(DatabaseError) {
        let tree = Array(root.exportJSON.serialized().utf8)
        try store([.deleteSpace(space), .put(space: space, key: Self.treeKey, value: tree)])
        next = 0
        journalBytes = 0
        treeBytes = tree.count
    }

    private func store(_ changes: [DurableChange]) throws(DatabaseError) {
        do {
            try durable.write(changes)
        } catch {
            throw .unavailable("The write could not be stored: \(error.message)")
        }
    }

    /// Twenty digits, so that keys sort as numbers.
    private static func sequenceKey(_ sequence: Int) -> String {
        let digits = String(sequence)
        return String(repeating: "0", count: max(0, 20 - digits.count)) + digits
    }
}
