import EmulatorCore
import HashTreeCollections

/// Children in a query's order: index value, ties by key order.
enum ChildIndexOrder: ChunkOrder {
    static func precedes(_ a: DatabaseQuery.Entry.Ordering, _ b: DatabaseQuery.Entry.Ordering) -> Bool {
        DatabaseQuery.Entry.compare(a, b) < 0
    }
    /// A write moves one entry: small chunks keep that move short.
    static var chunkLimit: Int { 64 }
}

/// A node's children sorted by a query index (a child path's value, `.indexOn`, or `.value`), kept
/// current write by write, so that a query ordered that way reads only the children it returns:
/// O(log n + k) instead of a pass over every child. Its entries hold keys and index values; the children
/// themselves are read from the node when a query selects them.
package struct ChildIndex: Sendable {
    /// What the children are ordered by.
    package let index: DatabaseQuery.Index
    private var entries: SortedChunks<ChildIndexOrder>

    /// The children of `node` ordered by `index`.
    package init(of node: DataNode, by index: DatabaseQuery.Index) {
        self.index = index
        var all: [DatabaseQuery.Entry.Ordering] = []
        all.reserveCapacity(node.childCount)
        for (key, child) in node.children { all.append(Self.entry(key, child, by: index)) }
        all.sort { DatabaseQuery.Entry.compare($0, $1) < 0 }
        entries = SortedChunks(sorted: all)
    }

    /// How many children it orders.
    package var count: Int { entries.count }

    /// Takes child `key` going from `old` to `new` (the empty node: absent).
    package mutating func update(_ key: String, from old: DataNode, to new: DataNode) {
        if !old.isEmpty { entries.remove(Self.entry(key, old, by: index)) }
        if !new.isEmpty { entries.insert(Self.entry(key, new, by: index)) }
    }

    private static func entry(_ key: String, _ child: DataNode, by index: DatabaseQuery.Index) -> DatabaseQuery.Entry.Ordering {
        DatabaseQuery.Entry(key: key, node: .empty, value: DatabaseQuery.indexedValue(of: child, by: index)).ordering
    }

    /// The keys `query` (ordered by this index) selects, in no particular order: its range from the end its
    /// limit counts from, at most the limit.
    func selectedKeys(for query: DatabaseQuery) -> [String] {
        guard query.limit ?? 1 > 0 else { return [] }
        let (startPost, endPost) = (query.startPost, query.endPost)
        let startInclusive = query.start?.inclusive ?? true
        let endInclusive = query.end?.inclusive ?? true
        let beforeStart = { (entry: DatabaseQuery.Entry.Ordering) -> Bool in
            guard let startPost else { return false }
            let order = startPost.compare(value: entry.value, key: entry.key)
            return startInclusive ? order > 0 : order >= 0
        }
        let afterEnd = { (entry: DatabaseQuery.Entry.Ordering) -> Bool in
            guard let endPost else { return false }
            let order = endPost.compare(value: entry.value, key: entry.key)
            return endInclusive ? order < 0 : order <= 0
        }
        let limit = query.limit ?? .max
        var keys: [String] = []
        if query.limitFromLeft || query.limit == nil {
            for entry in entries.elements(from: beforeStart) {
                if afterEnd(entry) || keys.count == limit { break }
                keys.append(entry.key)
            }
        } else {
            for entry in entries.reversed(before: { !afterEnd($0) }) {
                if beforeStart(entry) || keys.count == limit { break }
                keys.append(entry.key)
            }
        }
        return keys
    }
}

extension DatabaseQuery {
    /// `window(of:)` read through `index` (the children of `node` ordered as this query orders them).
    package func window(of node: DataNode, using index: ChildIndex) -> DataNode {
        if loadsAllData { return node }
        var children: DataNode.Children = [:]
        for key in index.selectedKeys(for: self) { children[key] = node.child(key) }
        return DataNode(children: children)
    }
}
