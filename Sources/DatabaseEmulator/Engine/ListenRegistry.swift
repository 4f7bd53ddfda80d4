import DatabaseTree

/// One listen: a path with a query, whose events go to a sink.
struct Listener: Sendable {
    /// Unique within the database.
    let id: UInt64
    /// Where it listens.
    let path: DatabasePath
    /// What it selects there.
    let query: DatabaseQuery
    /// The client's tag for queries that do not load all data (echoed on every event).
    let tag: Int?
    /// Where its events go.
    let sink: any ListenSink
    /// Who listens (rules are checked again when they or the connection's auth change).
    var auth: DatabaseAuth
    /// The window last sent, for queries that do not load all data.
    var window: DataNode?
}

/// The listens of one database, in a tree of their paths: the listens a write at a path concerns are those
/// on the way from the root to it and those below it.
struct ListenRegistry: Sendable {
    private struct Node: Sendable {
        var children: [String: Node] = [:]
        var listeners: [UInt64: Listener] = [:]
        var isEmpty: Bool { children.isEmpty && listeners.isEmpty }
    }

    private var root = Node()
    private var paths: [UInt64: DatabasePath] = [:]

    /// Adds a listen.
    mutating func add(_ listener: Listener) {
        paths[listener.id] = listener.path
        Self.modify(&root, at: listener.path.keys[...]) { $0.listeners[listener.id] = listener }
    }

    /// Removes a listen; returns it.
    @discardableResult
    mutating func remove(_ id: UInt64) -> Listener? {
        guard let path = paths.removeValue(forKey: id) else { return nil }
        var removed: Listener?
        Self.modify(&root, at: path.keys[...]) { removed = $0.listeners.removeValue(forKey: id) }
        return removed
    }

    /// The listen with `id`.
    func listener(_ id: UInt64) -> Listener? {
        guard let path = paths[id] else { return nil }
        var node = root
        for key in path.keys {
            guard let child = node.children[key] else { return nil }
            node = child
        }
        return node.listeners[id]
    }

    /// Replaces who a listen reads as.
    mutating func setAuth(_ auth: DatabaseAuth, of id: UInt64) {
        guard let path = paths[id] else { return }
        Self.modify(&root, at: path.keys[...]) { $0.listeners[id]?.auth = auth }
    }

    /// Replaces the stored window of a listen.
    mutating func setWindow(_ window: DataNode, of id: UInt64) {
        guard let path = paths[id] else { return }
        Self.modify(&root, at: path.keys[...]) { $0.listeners[id]?.window = window }
    }

    /// The listens a change at `path` concerns: at `path`, above it and below it.
    func affected(by path: DatabasePath) -> [Listener] {
        var found: [Listener] = []
        var node = root
        found.append(contentsOf: node.listeners.values)
        for key in path.keys {
            guard let child = node.children[key] else { return found }
            node = child
            found.append(contentsOf: node.listeners.values)
        }
        for child in node.children.values { Self.collect(child, into: &found) }
        return found
    }

    /// Every listen.
    var all: [Listener] {
        var found: [Listener] = []
        Self.collect(root, into: &found)
        return found
    }

    private static func collect(_ node: Node, into found: inout [Listener]) {
        found.append(contentsOf: node.listeners.values)
        for child in node.children.values { collect(child, into: &found) }
    }

    private static func modify(_ node: inout Node, at keys: ArraySlice<String>, _ change: (inout Node) -> Void) {
        guard let first = keys.first else {
            change(&node)
            return
        }
        var child = node.children.removeValue(forKey: first) ?? Node()
        modify(&child, at: keys.dropFirst(), change)
        if !child.isEmpty { node.children[first] = child }
    }
}
