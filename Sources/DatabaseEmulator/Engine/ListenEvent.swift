import DatabaseTree

/// What a listener is told: data at a path changed (a whole node, or some children), or its listen was
/// revoked. Paths are absolute; sinks render them for their wire.
enum ListenEvent: Sendable {
    /// The node at `path` is now `node`.
    case overwrite(path: DatabasePath, node: DataNode, tag: Int?)
    /// The children at `path` named by relative paths are now these nodes (a multi-location update).
    case merge(path: DatabasePath, children: [(DatabasePath, DataNode)], tag: Int?)
    /// The rules no longer let the listener read (`query` for tagged listens).
    case revoked(path: DatabasePath, query: DatabaseQuery, tag: Int?)
}

/// Where a listener's events go: a WebSocket connection or a server-sent events stream. `deliver` is called
/// with the database locked, in commit order; it must only enqueue.
protocol ListenSink: AnyObject, Sendable {
    /// Enqueues one event.
    func deliver(_ event: ListenEvent)
}
