import DatabaseTree
import EmulatorCore

/// The wire protocol v5 of one connection, without I/O: its auth, its listens and its onDisconnect
/// operations. Each event (the connection opened, a client message, a database operation's outcome, the
/// connection closed) returns the actions to perform, in order: frames to send, database operations to run
/// (whose outcomes come back through `completed(_:_:)` before the next message), listens to end, writes to
/// make, and the end of the connection. Listen events need no state: the connection enqueues them as they
/// come (rendered by `render(_:)`).
struct WireStateMachine: Sendable {
    /// What the writer sends.
    enum Outgoing: Sendable {
        /// A whole envelope.
        case envelope(JSONValue)
        /// A listen event, rendered when written.
        case event(ListenEvent)
        /// A listen event shared with other connections, rendered once for all.
        case delivery(Delivery)
    }

    /// A listen as the client names it: a path and a query (serialized).
    struct ListenKey: Hashable, Sendable {
        /// Where it listens.
        var path: DatabasePath
        /// Its query's wire JSON, serialized.
        var query: String
    }

    /// A database operation a request needs; its outcome is reported with `completed(_:_:)`.
    enum Operation: Sendable {
        /// Start a listen (`q`) and send its current data; it is known by `key` once started.
        case listen(request: Int64, key: ListenKey, path: DatabasePath, query: DatabaseQuery, tag: Int?, auth: DatabaseAuth)
        /// Make a write (`p`, `m`); `hash` makes it a transaction.
        case write(request: Int64, WriteRequest, auth: DatabaseAuth, hash: String?)
        /// Check that an onDisconnect write (`o`, `om`) is allowed now.
        case checkWrite(request: Int64, WriteRequest, auth: DatabaseAuth)
        /// Read data (`g`).
        case read(request: Int64, path: DatabasePath, query: DatabaseQuery, auth: DatabaseAuth)
        /// Check the listens `ids` again as `auth` (after `auth`, `gauth` or `unauth`), revoking those now
        /// denied; `response` is the request's data once done.
        case reauthorize(request: Int64, ids: [UInt64], auth: DatabaseAuth, response: JSONValue)

        /// The request the operation serves.
        var request: Int64 {
            switch self {
            case .listen(let request, _, _, _, _, _), .write(let request, _, _, _), .checkWrite(let request, _, _),
                .read(let request, _, _, _), .reauthorize(let request, _, _, _):
                return request
            }
        }
    }

    /// What an operation that succeeded gave.
    enum Outcome: Sendable {
        /// The listen started with this id; `indexOn` is what the rules index at its path.
        case listening(UInt64, indexOn: [String])
        /// The write was made, or is allowed.
        case done
        /// The data read.
        case node(DataNode)
        /// The listens revoked.
        case revoked(Set<UInt64>)
    }

    /// What the connection does, in order.
    enum Action: Sendable {
        /// Enqueue a frame.
        case send(Outgoing)
        /// Run a database operation and report its outcome before anything else.
        case run(Operation)
        /// End these listens.
        case unlisten([UInt64])
        /// Make these writes, each as its auth, in order and as one step (the onDisconnect writes).
        case writeAll([(WriteRequest, DatabaseAuth)])
        /// Stop reading: the client broke the protocol and the connection ends (then report `closed()`).
        case close
        /// Nothing more will be sent: close the socket once what is queued is written.
        case finish
    }

    /// Who the client is.
    private(set) var auth = DatabaseAuth.anonymous
    /// The client's listens, with the database's ids.
    private(set) var listens: [ListenKey: UInt64] = [:]
    /// The writes to make when the connection goes away.
    private(set) var onDisconnect = OnDisconnectQueue()

    /// The largest write (`p`, `m`, `o`, `om`) the SDKs may send: 16 MB, as in production.
    static let writeLimit = 16 << 20

    // MARK: - Events

    /// The connection opened: the server hello, which must be the first frame, gives the server time, the
    /// protocol version, the host the client should use next time, and a session id.
    func opened(host: String, sessionID: String, now: Int64) -> [Action] {
        let hello: JSONValue = .object(["ts": .int(now), "v": "5", "h": .string(host), "s": .string(sessionID)])
        return [.send(.envelope(Self.control("h", hello)))]
    }

    /// One reassembled message from the client. Requests are answered strictly in order; one that is not a
    /// protocol message at all ends the connection, as production's does.
    mutating func receive(_ text: String) -> [Action] {
        guard let json = try? JSONValue.parse(text), case .object(let envelope) = json,
            let type = envelope["t"]?.stringValue
        else {
            return [.send(.envelope(Self.control("e", "Invalid message: not a JSON envelope"))), .close]
        }
        switch type {
        case "c":
            // A ping (`p`) is answered with a pong (`o`); other control messages need nothing.
            return envelope["d"]?["t"]?.stringValue == "p" ? [.send(.envelope(Self.control("o", .null)))] : []
        case "d":
            guard case .object(let message)? = envelope["d"], let request = message["r"]?.intValue else {
                return [.send(.envelope(Self.control("e", "Invalid message: a data message needs \"r\""))), .close]
            }
            let action = message["a"]?.stringValue ?? ""
            let body = message["b"]?.objectValue ?? [:]
            do {
                return try handle(request, action: action, body: body, size: text.utf8.count)
            } catch {
                return [Self.respond(request, failure: error)]
            }
        default:
            return [.send(.envelope(Self.control("e", .string("Invalid message type \"\(type)\"")))), .close]
        }
    }

    /// An operation asked for by `.run` finished with `result`.
    mutating func completed(_ operation: Operation, _ result: Result<Outcome, DatabaseError>) -> [Action] {
        switch (operation, result) {
        case (_, .failure(let error)):
            return [Self.respond(operation.request, failure: error)]
        case (.listen(let request, let key, _, let query, _, _), .success(.listening(let id, let indexOn))):
            listens[key] = id
            if case .child(let child) = query.index, !indexOn.contains(child.wire) {
                return [Self.respond(request, data: ["w": ["no_index"]])]
            }
            if case .value = query.index, !indexOn.contains(".value") {
                return [Self.respond(request, data: ["w": ["no_index"]])]
            }
            return [Self.respond(request, data: .object([:]))]
        case (.write(let request, _, _, _), .success(.done)):
            return [Self.respond(request)]
        case (.checkWrite(let request, let write, _), .success(.done)):
            onDisconnect.append(write)
            return [Self.respond(request)]
        case (.read(let request, _, _, _), .success(.node(let node))):
            return [Self.respond(request, data: node.exportJSON)]
        case (.reauthorize(let request, _, _, let response), .success(.revoked(let revoked))):
            if !revoked.isEmpty { listens = listens.filter { !revoked.contains($0.value) } }
            return [Self.respond(request, data: response)]
        default:
            preconditionFailure("\(result) is not an outcome of \(operation)")
        }
    }

    /// The connection is gone: its listens end and its onDisconnect writes run, in order, as one step.
    mutating func closed() -> [Action] {
        var actions: [Action] = []
        if !listens.isEmpty { actions.append(.unlisten(Array(listens.values))) }
        if !onDisconnect.writes.isEmpty { actions.append(.writeAll(onDisconnect.writes.map { ($0, auth) })) }
        listens.removeAll()
        onDisconnect.removeAll()
        return actions + [.finish]
    }

    // MARK: - Requests

    /// What request `request` (action `action`, `size` bytes as sent) needs; throws when it is refused
    /// before reaching the database.
    private mutating func handle(
        _ request: Int64, action: String, body: [String: JSONValue], size: Int
    ) throws(DatabaseError) -> [Action] {
        switch action {
        case "s", "appcheck", "unappeck", "unappcheck":
            return [Self.respond(request)]
        case "auth", "gauth":
            return authenticate(request, body)
        case "unauth":
            return reauthorize(request, as: .anonymous, response: "")
        case "q", "l":
            let path = try Self.path(body)
            let query = try Self.query(body)
            let key = ListenKey(path: path, query: query.wireJSON.serialized())
            let tag = body["t"]?.intValue.map(Int.init)
            return endListen(key) + [.run(.listen(request: request, key: key, path: path, query: query, tag: tag, auth: auth))]
        case "n", "u":
            let key = ListenKey(path: try Self.path(body), query: try Self.query(body).wireJSON.serialized())
            return endListen(key) + [Self.respond(request)]
        case "p", "m":
            try Self.checkSize(size)
            let write = try Self.write(action, body)
            return [.run(.write(request: request, write, auth: auth, hash: body["h"]?.stringValue))]
        case "o", "om":
            try Self.checkSize(size)
            let write = try Self.write(action == "o" ? "p" : "m", body)
            return [.run(.checkWrite(request: request, write, auth: auth))]
        case "oc":
            onDisconnect.cancel(at: try Self.path(body))
            return [Self.respond(request)]
        case "g":
            let path = try Self.path(body)
            let query = try Self.query(body)
            return [.run(.read(request: request, path: path, query: query, auth: auth))]
        default:
            return [Self.respond(request, status: "invalid_request", data: .string("Unknown action \"\(action)\""))]
        }
    }

    /// Forgets the listen known as `key`, if any; the action that ends it in the database.
    private mutating func endListen(_ key: ListenKey) -> [Action] {
        guard let id = listens.removeValue(forKey: key) else { return [] }
        return [.unlisten([id])]
    }

    /// `auth`, `gauth`: the credential decides who the client is (the owner may act as a given `authvar`,
    /// or as nobody with `noauth`).
    private mutating func authenticate(_ request: Int64, _ body: [String: JSONValue]) -> [Action] {
        guard let token = body["cred"]?.stringValue else {
            return [Self.respond(request, status: "invalid_token", data: "Missing credential.")]
        }
        let auth: DatabaseAuth
        var expires = JSONValue.null
        switch Credential(token: token) {
        case .owner:
            if let variable = body["authvar"], variable != .null {
                auth = .user(variable)
            } else if body["noauth"]?.boolValue == true {
                auth = .anonymous
            } else {
                auth = .admin
            }
        case .user(let token):
            auth = .user(DatabaseAuth.authVariable(token))
            expires = token.claims["exp"] ?? .null
        case .none, .opaque:
            return [Self.respond(request, status: "invalid_token", data: "Could not parse auth token.")]
        }
        return reauthorize(request, as: auth, response: .object(["auth": auth.variable ?? .null, "expires": expires]))
    }

    /// Switches the connection to `auth`; its listens are checked again (those now denied are revoked) before
    /// the request is answered with `response`.
    private mutating func reauthorize(_ request: Int64, as auth: DatabaseAuth, response: JSONValue) -> [Action] {
        self.auth = auth
        guard !listens.isEmpty else { return [Self.respond(request, data: response)] }
        return [.run(.reauthorize(request: request, ids: Array(listens.values), auth: auth, response: response))]
    }
}
