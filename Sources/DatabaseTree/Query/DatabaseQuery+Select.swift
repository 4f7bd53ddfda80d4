import EmulatorCore
import HashTreeCollections

/// Applying a query to a node: the SDKs' `RangedFilter` and `LimitedFilter` over a whole node.
///
/// Cost for a node with n children, m of them in the range and a limit l: one pass over the children
/// (computing each index value once, two bound comparisons each), then O(m log m) to sort the range, or
/// O(m log l) comparisons when l is small against m (a bounded insertion buffer). `window(of:)` without a
/// limit does not sort at all. Keys are compared with their integer values computed once per child.
extension DatabaseQuery {
    /// The children of `node` the query selects, in the query's order (index order, ties by key order).
    /// A leaf or the empty node has none.
    package func select(from node: DataNode) -> [(key: String, node: DataNode)] {
        selectedEntries(from: node, sorted: true).map { (key: $0.key, node: $0.node) }
    }

    /// `node` reduced to the children the query selects, with their priorities: what a listen or `get` of
    /// this query sees. A query that loads all data sees the node as is; any other sees no leaf (the
    /// empty node instead) and drops the node's own priority, as the SDKs' filters do.
    package func window(of node: DataNode) -> DataNode {
        if loadsAllData { return node }
        let entries = selectedEntries(from: node, sorted: limit != nil)
        var children: DataNode.Children = [:]
        for entry in entries { children[entry.key] = entry.node }
        return DataNode(children: children)
    }

    /// -1, 0 or 1 as child `a` sorts before, with or after child `b` under this query's index (ties by key
    /// order).
    package func compare(_ a: (key: String, node: DataNode), _ b: (key: String, node: DataNode)) -> Int {
        let order = IndexedValue.compare(indexedValue(of: a.node), indexedValue(of: b.node))
        return order != 0 ? order : KeyOrder.compare(a.key, b.key)
    }

    /// A child with its index value and the integer value of its key, computed once.
    struct Entry {
        let key: String
        let node: DataNode
        let value: IndexedValue
        let integerKey: Int32?
        /// Whether the key's UTF-8 bytes sort as its UTF-16 code units: no character from U+E000 up
        /// (above it, UTF-16 puts surrogate pairs before U+E000–U+FFFF).
        let bytesSortAsUTF16: Bool

        init(key: String, node: DataNode, value: IndexedValue) {
            self.key = key
            self.node = node
            self.value = value
            integerKey = KeyOrder.integerValue(key)
            bytesSortAsUTF16 = key.utf8.allSatisfy { $0 < 0xEE }
        }

        /// -1, 0 or 1 as `a` sorts before, with or after `b`: `KeyOrder.compare` for keys (never the
        /// sentinel names) with the integer values already parsed.
        static func compare(_ a: Entry, _ b: Entry) -> Int { compare(a.ordering, b.ordering) }

        /// What an entry is ordered by (a child index keeps only this).
        var ordering: Ordering { Ordering(value: value, key: key, integerKey: integerKey, bytesSortAsUTF16: bytesSortAsUTF16) }

        /// An entry's index value and key, with what comparing keys needs computed once.
        struct Ordering: Sendable {
            let value: IndexedValue
            let key: String
            let integerKey: Int32?
            let bytesSortAsUTF16: Bool
        }

        /// -1, 0 or 1 as `a` sorts before, with or after `b`.
        static func compare(_ a: Ordering, _ b: Ordering) -> Int {
            let order = IndexedValue.compare(a.value, b.value)
            if order != 0 { return order }
            let bytes = a.bytesSortAsUTF16 && b.bytesSortAsUTF16
            return KeyOrder.compare(a.key, integer: a.integerKey, b.key, integer: b.integerKey) { left, right in
                if bytes, let order = compareBytes(left, right) { return order }
                return KeyOrder.compareUTF16(left, right)
            }
        }

        /// `KeyOrder.compareUTF16` for keys whose bytes sort as their code units, over contiguous UTF-8.
        private static func compareBytes(_ a: String, _ b: String) -> Int? {
            a.utf8.withContiguousStorageIfAvailable { left in
                b.utf8.withContiguousStorageIfAvailable { right in
                    let count = min(left.count, right.count)
                    for index in 0..<count where left[index] != right[index] {
                        return left[index] < right[index] ? -1 : 1
                    }
                    return left.count < right.count ? -1 : (left.count > right.count ? 1 : 0)
                }
            } ?? nil
        }
    }

    /// A point of the index order that a range starts or ends at (the SDKs' "post").
    struct Post {
        let value: IndexedValue
        let name: String

        /// -1, 0 or 1 as this point sorts before, at or after `entry`.
        func compare(to entry: Entry) -> Int { compare(value: entry.value, key: entry.key) }

        /// -1, 0 or 1 as this point sorts before, at or after an entry with `value` and `key`.
        func compare(value other: IndexedValue, key: String) -> Int {
            let order = IndexedValue.compare(value, other)
            return order != 0 ? order : KeyOrder.compare(name, key)
        }
    }

    /// The value a child is ordered by (`.null` for every child under `.key`: only keys count).
    func indexedValue(of node: DataNode) -> IndexedValue { Self.indexedValue(of: node, by: index) }

    /// The value a child is ordered by under `index`.
    static func indexedValue(of node: DataNode, by index: Index) -> IndexedValue {
        switch index {
        case .priority:
            guard let priority = node.priority else { return .null }
            return IndexedValue(priority)
        case .key: return .null
        case .value: return IndexedValue(node)
        case .child(let path): return IndexedValue(node.node(at: path))
        }
    }

    /// Where the range starts. A bound without a name starts before the first key at its value, or after
    /// the last one when exclusive (`startAfter(value)`).
    var startPost: Post? {
        guard let start else { return nil }
        if case .key = index { return Post(value: .null, name: start.value.primitiveString ?? "") }
        let name = start.name ?? (start.inclusive ? KeyOrder.minName : KeyOrder.maxName)
        return Post(value: IndexedValue(bound: start.value) ?? .null, name: name)
    }

    /// Where the range ends. A bound without a name ends after the last key at its value, or before the
    /// first one when exclusive (`endBefore(value)`).
    var endPost: Post? {
        guard let end else { return nil }
        if case .key = index { return Post(value: .null, name: end.value.primitiveString ?? "") }
        let name = end.name ?? (end.inclusive ? KeyOrder.maxName : KeyOrder.minName)
        return Post(value: IndexedValue(bound: end.value) ?? .max, name: name)
    }

    /// The children in the range, limited; in order when `sorted` or when a limit applies.
    func selectedEntries(from node: DataNode, sorted: Bool) -> [Entry] {
        guard case .children(let children) = node.content, !children.isEmpty, limit ?? 1 > 0 else { return [] }
        let (startPost, endPost) = (self.startPost, self.endPost)
        let startInclusive = start?.inclusive ?? true
        let endInclusive = end?.inclusive ?? true
        var entries: [Entry] = []
        entries.reserveCapacity(children.count)
        for (key, child) in children {
            let entry = Entry(key: key, node: child, value: indexedValue(of: child))
            if let startPost {
                let order = startPost.compare(to: entry)
                if startInclusive ? order > 0 : order >= 0 { continue }
            }
            if let endPost {
                let order = endPost.compare(to: entry)
                if endInclusive ? order < 0 : order <= 0 { continue }
            }
            entries.append(entry)
        }
        guard let limit, limit < entries.count else {
            if sorted { entries.sort { Entry.compare($0, $1) < 0 } }
            return entries
        }
        if limit * 8 >= entries.count {
            entries.sort { Entry.compare($0, $1) < 0 }
            return limitFromLeft ? Array(entries.prefix(limit)) : Array(entries.suffix(limit))
        }
        var buffer = LimitBuffer(limit: limit, fromLeft: limitFromLeft)
        for entry in entries { buffer.offer(entry) }
        return buffer.entries
    }
}

/// The first or last `limit` entries seen so far, in order: binary insertion into a small sorted array.
private struct LimitBuffer {
    let limit: Int
    let fromLeft: Bool
    var entries: [DatabaseQuery.Entry] = []

    mutating func offer(_ entry: DatabaseQuery.Entry) {
        if entries.count == limit {
            if fromLeft {
                guard DatabaseQuery.Entry.compare(entry, entries[entries.count - 1]) < 0 else { return }
                entries.removeLast()
            } else {
                guard DatabaseQuery.Entry.compare(entry, entries[0]) > 0 else { return }
                entries.removeFirst()
            }
        }
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if DatabaseQuery.Entry.compare(entries[middle], entry) < 0 {
                low = middle + 1
            } else {
                high = middle
            }
        }
        entries.insert(entry, at: low)
    }
}
