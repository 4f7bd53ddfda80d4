import DatabaseRules
import DatabaseTree
import EmulatorCore
import Synchronization

/// One client of the wire protocol v5 (the JS, iOS, Android and admin SDKs' WebSocket): its auth, its
/// listens and its onDisconnect operations. Requests are handled strictly in the order they arrive;
/// responses and listen events leave through one outbox in the order they were made, so a write's events
/// reach its own listens before its `ok`. When the connection goes away its onDisconnect writes run.
final class WireConnection: ListenSink {
    /// What the writer sends.
    enum Outgoing: Sendable {
        /// A whole envelope.
        case envelope(JSONValue)
        /// A listen event, rendered when written.
        case event(ListenEvent)
        /// A listen event shared with other connections, rendered once for all.
        case delivery(Delivery)
    }

    /// The database (namespace) the client connected to.
    let database: Database
    /// What waits to be written.
    let outbox: Outbox<Outgoing>
    /// The largest write (`p`, `m`, `o`, `om`) the SDKs may send: 16 MB, as in production.
    static let writeLimit = 16 << 20

    private let state = Mutex(State())

    private struct State {
        var auth = DatabaseAuth.anonymous
        var listens: [ListenKey: UInt64] = [:]
        var onDisconnect = OnDisconnectQueue()
    }

    private struct ListenKey: Hashable {
        var path: DatabasePath
        var query: String
    }

    /// A connection to `database`; a client that lets more than `outboxLimit` messages wait is cut off.
    init(database: Database, outboxLimit: Int = 100_000) {
        self.database = database
        outbox = Outbox(limit: outboxLimit)
    }

    /// The server hello, which must be the first frame: server time, protocol version, the host the client
    /// should use next time, and a session id.
    static func hello(host: String, sessionID: String, now: Int64) -> JSONValue {
        .object([
            "t": "c",
            "d": .object(["t": "h", "d": .object(["ts": .int(now), "v": "5", "h": .string(host), "s": .string(sessionID)])]),
        ])
    }

    /// Enqueues a listen event.
    func deliver(_ delivery: Delivery) {
        outbox.send(.delivery(delivery))
    }

    // MARK: - Requests

    /// Handles one reassembled message; returns false when it is not a protocol message at all (the
    /// connection then ends, as production's does).
    func receive(_ text: String) -> Bool {
        guard let json = try? JSONValue.parse(text), case .object(let envelope) = json,
            let type = envelope["t"]?.stringValue
        else {
            outbox.send(.envelope(Self.control("e", .string("Invalid message: not a JSON envelope"))))
            return false
        }
        switch type {
        case "c":
            if envelope["d"]?["t"]?.stringValue == "p" { outbox.send(.envelope(Self.control("o", .null))) }
            return true
        case "d":
            guard case .object(let message)? = envelope["d"], let request = message["r"]?.intValue else {
                outbox.send(.envelope(Self.control("e", .string("Invalid message: a data message needs \"r\""))))
                return false
            }
            let action = message["a"]?.stringValue ?? ""
            let body = message["b"]?.objectValue ?? [:]
            let (status, data) = handle(action: action, body: body, size: text.utf8.count)
            outbox.send(.envelope(Self.response(request, status: status, data: data)))
            return true
        default:
            outbox.send(.envelope(Self.control("e", .string("Invalid message type \"\(type)\""))))
            return false
        }
    }

    /// Performs one request; returns the response's status and data.
    private func handle(action: String, body: [String: JSONValue], size: Int) -> (String, JSONValue) {
        do {
            switch action {
            case "s", "appcheck", "unappeck", "unappcheck":
                return ("ok", "")
            case "auth", "gauth":
                return authenticate(body)
            case "unauth":
                reauthorize(.anonymous)
                return ("ok", "")
            case "q", "l":
                return try listen(body)
            case "n", "u":
                try unlisten(body)
                return ("ok", "")
            case "p", "m":
                try checkSize(size)
                let request = try write(action, body)
                try database.write(request, auth: auth, hash: body["h"]?.stringValue)
                return ("ok", "")
            case "o", "om":
                try checkSize(size)
                let request = try write(action == "o" ? "p" : "m", body)
                try database.checkWrite(request, auth: auth)
                state.withLock { $0.onDisconnect.append(request) }
                return ("ok", "")
            case "oc":
                let path = try Self.path(body)
                state.withLock { $0.onDisconnect.cancel(at: path) }
                return ("ok", "")
            case "g":
                let path = try Self.path(body)
                let query = try Self.query(body)
                return ("ok", try database.read(path, query: query, auth: auth).exportJSON)
            default:
                return ("invalid_request", .string("Unknown action \"\(action)\""))
            }
        } catch {
            return Self.failure(error)
        }
    }

    private var auth: DatabaseAuth { state.withLock { $0.auth } }

    private func checkSize(_ size: Int) throws(DatabaseError) {
        if size > Self.writeLimit {
            throw .tooBig("Data to write exceeds the maximum size that can be modified with a single request.")
        }
    }

    private func authenticate(_ body: [String: JSONValue]) -> (String, JSONValue) {
        guard let token = body["cred"]?.stringValue else { return ("invalid_token", "Missing credential.") }
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
            return ("invalid_token", "Could not parse auth token.")
        }
        reauthorize(auth)
        return ("ok", .object(["auth": auth.variable ?? .null, "expires": expires]))
    }

    /// Switches the connection to `auth`; its listens are checked again and those now denied revoked.
    private func reauthorize(_ auth: DatabaseAuth) {
        let ids = state.withLock { state in
            state.auth = auth
            return Array(state.listens.values)
        }
        guard !ids.isEmpty else { return }
        let revoked = database.reauthorize(ids, auth: auth)
        guard !revoked.isEmpty else { return }
        state.withLock { state in
            state.listens = state.listens.filter { !revoked.contains($0.value) }
        }
    }

    private func listen(_ body: [String: JSONValue]) throws(DatabaseError) -> (String, JSONValue) {
        let path = try Self.path(body)
        let query = try Self.query(body)
        let key = ListenKey(path: path, query: query.wireJSON.serialized())
        if let previous = state.withLock({ $0.listens.removeValue(forKey: key) }) { database.unlisten(previous) }
        let id = try database.listen(path, query: query, tag: body["t"]?.intValue.map(Int.init), auth: auth, sink: self)
        state.withLock { $0.listens[key] = id }
        if case .child(let child) = query.index, !database.rules.indexOn(path).contains(child.wire) {
            return ("ok", ["w": ["no_index"]])
        }
        return ("ok", .object([:]))
    }

    private func unlisten(_ body: [String: JSONValue]) throws(DatabaseError) {
        let key = ListenKey(path: try Self.path(body), query: try Self.query(body).wireJSON.serialized())
        if let id = state.withLock({ $0.listens.removeValue(forKey: key) }) { database.unlisten(id) }
    }

    private func write(_ action: String, _ body: [String: JSONValue]) throws(DatabaseError) -> WriteRequest {
        let path = try Self.path(body)
        let data = body["d"] ?? .null
        return action == "p" ? .set(path, data) : try WriteRequest.update(at: path, members: data)
    }

    private static func path(_ body: [String: JSONValue]) throws(DatabaseError) -> DatabasePath {
        guard let text = body["p"]?.stringValue else { throw .invalid("Invalid request: missing path \"p\"") }
        return DatabasePath(text)
    }

    private static func query(_ body: [String: JSONValue]) throws(DatabaseError) -> DatabaseQuery {
        do {
            return try DatabaseQuery(wire: body["q"])
        } catch {
            throw .invalid(error.message)
        }
    }

    private static func failure(_ error: DatabaseError) -> (String, JSONValue) {
        switch error {
        case .permissionDenied: return ("permission_denied", "Permission denied")
        case .invalid(let message): return ("invalid_data", .string(message))
        case .dataStale: return ("datastale", .string(error.message))
        case .tooBig(let message): return ("too_big", .string(message))
        case .unavailable(let message): return ("unavailable", .string(message))
        case .preconditionFailed: return ("datastale", .string(error.message))
        }
    }

    // MARK: - Going away

    /// The connection is gone: its listens end and its onDisconnect writes run, in order, as one step.
    func close() {
        let (auth, ids, writes) = state.withLock { state in
            defer {
                state.listens.removeAll()
                state.onDisconnect.removeAll()
            }
            return (state.auth, Array(state.listens.values), state.onDisconnect.writes)
        }
        database.unlisten(ids)
        if !writes.isEmpty { database.writeAll(writes.map { ($0, auth) }) }
        outbox.finish()
    }

    // MARK: - Rendering

    /// The text of an outgoing item.
    static func render(_ item: Outgoing) -> String {
        switch item {
        case .envelope(let json): return json.serialized()
        case .event(let event): return data(event).serialized()
        case .delivery(let delivery): return delivery.wire
        }
    }

    private static func data(_ event: ListenEvent) -> JSONValue {
        var body: [String: JSONValue]
        let action: String
        switch event {
        case .overwrite(let path, let node, let tag):
            action = "d"
            body = ["p": .string(path.wire), "d": node.exportJSON]
            if let tag { body["t"] = .int(Int64(tag)) }
        case .merge(let path, let children, let tag):
            action = "m"
            var members: [String: JSONValue] = [:]
            for (relative, node) in children { members[relative.wire] = node.exportJSON }
            body = ["p": .string(path.wire), "d": .object(members)]
            if let tag { body["t"] = .int(Int64(tag)) }
        case .revoked(let path, let query, let tag):
            // The SDKs find the listen by its path as they print it ("/a/b") and, for a tagged query, by its
            // query objects (a list).
            action = "c"
            body = ["p": .string(path.description)]
            if tag != nil { body["q"] = [query.wireJSON] }
        }
        return .object(["t": "d", "d": .object(["a": .string(action), "b": .object(body)])])
    }

    private static func control(_ type: String, _ data: JSONValue) -> JSONValue {
        .object(["t": "c", "d": .object(["t": .string(type), "d": data])])
    }

    private static func response(_ request: Int64, status: String, data: JSONValue) -> JSONValue {
        .object(["t": "d", "d": .object(["r": .int(request), "b": .object(["s": .string(status), "d": data])])])
    }
}
