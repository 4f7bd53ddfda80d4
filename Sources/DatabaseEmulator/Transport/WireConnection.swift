import DatabaseRules
import DatabaseTree
import Synchronization

/// One client of the wire protocol v5 (the JS, iOS, Android and admin SDKs' WebSocket): performs its
/// `WireStateMachine`'s actions against the database and the outbox, and feeds the outcomes back. Requests
/// are handled strictly in the order they arrive; responses and listen events leave through one outbox in
/// the order they were made, so a write's events reach its own listens before its `ok`. When the
/// connection goes away its onDisconnect writes run.
final class WireConnection: ListenSink {
    /// The database (namespace) the client connected to.
    let database: Database
    /// What waits to be written.
    let outbox: Outbox<WireStateMachine.Outgoing>
    /// The protocol state; only the connection's reader drives it, one event at a time.
    private let machine = Mutex(WireStateMachine())

    /// A connection to `database`; a client that lets more than `outboxLimit` messages wait is cut off.
    init(database: Database, outboxLimit: Int = 100_000) {
        self.database = database
        outbox = Outbox(limit: outboxLimit)
    }

    /// Enqueues the server hello, which must be the first frame; `host` is where the client connected.
    func open(host: String, sessionID: String) {
        let now = database.now
        perform(machine.withLock { $0.opened(host: host, sessionID: sessionID, now: now) })
    }

    /// Enqueues a listen event.
    func deliver(_ delivery: Delivery) {
        outbox.send(.delivery(delivery))
    }

    /// Handles one reassembled message; returns false when it is not a protocol message at all (the
    /// connection then ends, as production's does).
    func receive(_ text: String) -> Bool {
        perform(machine.withLock { $0.receive(text) })
    }

    /// The connection is gone: its listens end and its onDisconnect writes run, in order, as one step.
    func close() {
        perform(machine.withLock { $0.closed() })
    }

    /// Performs `actions` in order, feeding each operation's outcome back to the machine and performing what
    /// follows from it first; returns false when one ends the connection.
    @discardableResult
    private func perform(_ actions: [WireStateMachine.Action]) -> Bool {
        var open = true
        for action in actions {
            switch action {
            case .send(let item):
                outbox.send(item)
            case .run(let operation):
                let result = run(operation)
                open = perform(machine.withLock { $0.completed(operation, result) }) && open
            case .unlisten(let ids):
                database.unlisten(ids)
            case .writeAll(let writes):
                database.writeAll(writes)
            case .close:
                open = false
            case .finish:
                outbox.finish()
            }
        }
        return open
    }

    /// Runs one database operation (the machine's lock is not held: the database may deliver to this
    /// connection meanwhile).
    private func run(_ operation: WireStateMachine.Operation) -> Result<WireStateMachine.Outcome, DatabaseError> {
        Result { () throws(DatabaseError) -> WireStateMachine.Outcome in
            switch operation {
            case .listen(_, _, let path, let query, let tag, let auth):
                let id = try database.listen(path, query: query, tag: tag, auth: auth, sink: self)
                return .listening(id, indexOn: database.rules.indexOn(path))
            case .write(_, let request, let auth, let hash):
                try database.write(request, auth: auth, hash: hash)
                return .done
            case .checkWrite(_, let request, let auth):
                try database.checkWrite(request, auth: auth)
                return .done
            case .read(_, let path, let query, let auth):
                return .node(try database.read(path, query: query, auth: auth))
            case .reauthorize(_, let ids, let auth, _):
                return .revoked(database.reauthorize(ids, auth: auth))
            }
        }
    }
}
