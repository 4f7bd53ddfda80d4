import DatabaseTree

/// One listen's local copy of its location, kept from the server's data pushes (`d` overwrites and `m`
/// merges, at paths at, above or below the location). A query that does not load all data keeps only its
/// window.
struct ListenView: Sendable {
    /// The listened location.
    let location: DatabasePath
    /// The window's query, for a query that does not load all data (a tagged listen).
    let window: DatabaseTree.DatabaseQuery?
    /// The data at `location`.
    private(set) var node = DataNode.empty

    /// An empty view of `location`.
    init(location: DatabasePath, window: DatabaseTree.DatabaseQuery?) {
        self.location = location
        self.window = window
    }

    /// Applies the nodes now at `changes`' absolute paths; returns whether the view changed.
    mutating func apply(_ changes: [(path: DatabasePath, node: DataNode)]) -> Bool {
        let before = node
        for change in changes {
            if let relative = location.relative(change.path) {
                node.set(change.node, at: relative)
            } else if let inner = change.path.relative(location) {
                node = change.node.node(at: inner)
            }
        }
        if let window { node = window.window(of: node) }
        return node != before
    }
}
