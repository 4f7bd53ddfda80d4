import DatabaseTree
import Synchronization

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

/// A listen event as it goes out: one object however many listeners receive it, so that its wire protocol
/// text is rendered once (by the first connection that writes it) for all of them.
final class Delivery: Sendable {
    /// What happened.
    let event: ListenEvent
    private let wireText = Mutex<String?>(nil)

    /// The event, not yet rendered.
    init(_ event: ListenEvent) {
        self.event = event
    }

    /// The event's wire protocol text, rendered on first use.
    var wire: String {
        wireText.withLock { text in
            if let text { return text }
            let rendered = WireStateMachine.render(.event(event))
            text = rendered
            return rendered
        }
    }
}

/// Where a listener's events go: a WebSocket connection or a server-sent events stream. `deliver` is called
/// with the database locked, in commit order; it must only enqueue.
protocol ListenSink: AnyObject, Sendable {
    /// Enqueues one event.
    func deliver(_ delivery: Delivery)
}
