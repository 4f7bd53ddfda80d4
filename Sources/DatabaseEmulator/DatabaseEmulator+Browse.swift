import DatabaseTree
import HashTreeCollections
import EmulatorCore

extension DatabaseEmulator {
    /// The longest string value `children(of:in:limit:)` sends whole; a longer one is cut and marked.
    static let browsedStringLimit = 200

    /// What the Emulator UI shows of the node at `path` of `namespace` (the default database when nil): how
    /// many children it has and the first `limit` of them in key order, each with its key and either its
    /// value (a leaf; a string longer than 200 characters is cut and marked `truncated`) or how many
    /// children it has. One read however wide the node, where reading each shown child with `shallow=true`
    /// would take one request per child. Rules do not apply (the UI is an administrator). A namespace or path no
    /// database could have is refused as `INVALID_ARGUMENT`.
    public func children(of path: String, in namespace: String?, limit: Int) throws(APIError) -> JSONValue {
        let name: String
        do {
            name = try databases.namespace(requested: namespace, host: nil)
        } catch {
            throw .invalidArgument(error.message)
        }
        let location = DatabasePath(path)
        if let key = location.invalidKey {
            throw .invalidArgument(Database.invalidPathMessage(key))
        }
        let node = databases.database(name).root.node(at: location)
        if let leaf = node.leaf {
            return ["count": 0, "value": Self.browsed(leaf).value, "children": []]
        }
        let children = node.children
        let keys = Self.first(max(0, limit), of: children.keys)
        let shown: [JSONValue] = keys.map { key in
            let child = children[key] ?? .empty
            guard let leaf = child.leaf else { return ["key": .string(key), "count": .int(Int64(child.childCount))] }
            let (value, truncated) = Self.browsed(leaf)
            return truncated ? ["key": .string(key), "value": value, "truncated": true] : ["key": .string(key), "value": value]
        }
        return ["count": .int(Int64(children.count)), "children": .array(shown)]
    }

    /// A leaf's JSON, a long string cut to `browsedStringLimit` characters (and whether it was).
    private static func browsed(_ leaf: LeafValue) -> (value: JSONValue, truncated: Bool) {
        if case .string(let text) = leaf, text.count > browsedStringLimit {
            return (.string(String(text.prefix(browsedStringLimit))), true)
        }
        return (leaf.json, false)
    }

    /// The `count` first of `keys` in key order, without sorting them all: a wide node has many more keys
    /// than a page shows.
    private static func first(_ count: Int, of keys: some Sequence<String>) -> [String] {
        var kept: [String] = []
        kept.reserveCapacity(count + 1)
        for key in keys {
            guard kept.count < count || (kept.last.map { KeyOrder.precedes(key, $0) } ?? false) else { continue }
            var low = 0
            var high = kept.count
            while low < high {
                let middle = (low + high) / 2
                if KeyOrder.precedes(key, kept[middle]) { high = middle } else { low = middle + 1 }
            }
            kept.insert(key, at: low)
            if kept.count > count { kept.removeLast() }
        }
        return kept
    }
}
