import HashTreeCollections

/// A primitive stored at a leaf: what `val()` returns for a node without children.
package enum LeafValue: Sendable, Hashable {
    case bool(Bool)
    case number(Double)
    case string(String)
}

/// A node of a database's JSON tree, as the Realtime Database models it: either a leaf (a boolean, number
/// or string) or children by key (the empty node is "no children", which is also `null`), each with an
/// optional priority (a number or string; an empty node never has one).
///
/// A value type: writes copy only the nodes on the written path.
package struct DataNode: Sendable, Hashable {
    /// Children by key.
    package typealias Children = TreeDictionary<String, DataNode>

    /// What the node holds.
    package enum Content: Sendable, Hashable {
        case leaf(LeafValue)
        case children(Children)
    }

    /// What the node holds.
    package private(set) var content: Content
    /// The node's priority: a number or a string.
    package private(set) var priority: LeafValue?

    /// The empty node (`null`).
    package static let empty = DataNode(content: .children([:]), priority: nil)

    /// A leaf, with an optional priority.
    package init(_ value: LeafValue, priority: LeafValue? = nil) {
        content = .leaf(value)
        self.priority = priority
    }

    /// A node with `children` (empty children are dropped); with none it is the empty node, without priority.
    package init(children: Children, priority: LeafValue? = nil) {
        var kept = children
        for (key, child) in children where child.isEmpty { kept[key] = nil }
        content = .children(kept)
        self.priority = kept.isEmpty ? nil : priority
    }

    private init(content: Content, priority: LeafValue?) {
        self.content = content
        self.priority = priority
    }

    /// Whether this is `null`: no value and no children.
    package var isEmpty: Bool {
        if case .children(let children) = content { return children.isEmpty }
        return false
    }

    /// The leaf value, if this is a leaf.
    package var leaf: LeafValue? {
        if case .leaf(let value) = content { return value }
        return nil
    }

    /// The children by key (none for a leaf).
    package var children: Children {
        if case .children(let children) = content { return children }
        return [:]
    }

    /// How many children the node has.
    package var childCount: Int { children.count }

    /// The keys of the children in key order.
    package var sortedKeys: [String] { children.keys.sorted(by: KeyOrder.precedes) }

    /// The child at `key` (the empty node when absent); `.priority` is the priority as a leaf.
    package func child(_ key: String) -> DataNode {
        if key == ".priority" { return priority.map { DataNode($0) } ?? .empty }
        if case .children(let children) = content { return children[key] ?? .empty }
        return .empty
    }

    /// The node at `path` below this one.
    package func node(at path: DatabasePath) -> DataNode {
        var node = self
        for key in path.keys {
            node = node.child(key)
            if node.isEmpty { return .empty }
        }
        return node
    }

    /// Whether a non-empty node is at `path`.
    package func exists(at path: DatabasePath) -> Bool { !node(at: path).isEmpty }

    /// Replaces the child at `key` (`.priority`: the priority, which must be a leaf number or string or
    /// empty). Writing into a leaf turns it into a node with children, keeping its priority; removing the
    /// last child leaves the empty node.
    package mutating func setChild(_ key: String, to node: DataNode) {
        if key == ".priority" {
            setPriority(node.leaf)
            return
        }
        var children: Children
        if case .children(let existing) = content {
            children = existing
            content = .children([:])  // keep the dictionary uniquely referenced while it changes
        } else {
            if node.isEmpty { return }
            children = [:]
        }
        if node.isEmpty {
            children.removeValue(forKey: key)
        } else {
            children[key] = node
        }
        content = .children(children)
        if children.isEmpty { priority = nil }
    }

    /// Sets the priority (ignored on the empty node).
    package mutating func setPriority(_ priority: LeafValue?) {
        guard !isEmpty else { return }
        self.priority = priority
    }

    /// Replaces the node at `path` (the root: this node).
    package mutating func set(_ node: DataNode, at path: DatabasePath) {
        set(node, at: path.keys[...])
    }

    private mutating func set(_ node: DataNode, at keys: ArraySlice<String>) {
        guard let first = keys.first else {
            self = node
            return
        }
        if keys.count == 1 {
            setChild(first, to: node)
            return
        }
        var child = self.child(first)
        if case .children(var children) = content, children[first] != nil {
            // Take the child out so that it is uniquely referenced while it changes.
            content = .children([:])
            children[first] = nil
            content = .children(children)
        }
        child.set(node, at: keys.dropFirst())
        setChild(first, to: child)
    }
}
