import DatabaseTree
import EmulatorCore

/// Reading requests' bodies and rendering the protocol's envelopes.
extension WireStateMachine {
    // MARK: - Reading

    /// The request's path (`p`).
    static func path(_ body: [String: JSONValue]) throws(DatabaseError) -> DatabasePath {
        guard let text = body["p"]?.stringValue else { throw .invalid("Invalid request: missing path \"p\"") }
        return DatabasePath(text)
    }

    /// The request's query (`q`); none is the whole node.
    static func query(_ body: [String: JSONValue]) throws(DatabaseError) -> DatabaseQuery {
        do {
            return try DatabaseQuery(wire: body["q"])
        } catch {
            throw .invalid(error.message)
        }
    }

    /// The write a request makes: a set (`p`) or an update (anything else) of its data (`d`) at its path.
    static func write(_ action: String, _ body: [String: JSONValue]) throws(DatabaseError) -> WriteRequest {
        let path = try path(body)
        let data = body["d"] ?? .null
        return action == "p" ? .set(path, data) : try WriteRequest.update(at: path, members: data)
    }

    /// Refuses a write message larger than `writeLimit` bytes.
    static func checkSize(_ size: Int) throws(DatabaseError) {
        if size > writeLimit {
            throw .tooBig("Data to write exceeds the maximum size that can be modified with a single request.")
        }
    }

    // MARK: - Rendering

    /// The answer to request `request`.
    static func respond(_ request: Int64, status: String = "ok", data: JSONValue = "") -> Action {
        .send(.envelope(.object(["t": "d", "d": .object(["r": .int(request), "b": .object(["s": .string(status), "d": data])])])))
    }

    /// The answer to request `request` refused with `error`, in production's status and message.
    static func respond(_ request: Int64, failure error: DatabaseError) -> Action {
        switch error {
        case .permissionDenied: return respond(request, status: "permission_denied", data: "Permission denied")
        case .invalid(let message): return respond(request, status: "invalid_data", data: .string(message))
        case .dataStale: return respond(request, status: "datastale", data: .string(error.message))
        case .tooBig(let message): return respond(request, status: "too_big", data: .string(message))
        case .unavailable(let message): return respond(request, status: "unavailable", data: .string(message))
        case .preconditionFailed: return respond(request, status: "datastale", data: .string(error.message))
        }
    }

    /// A control message (`t: c`) of type `type`.
    static func control(_ type: String, _ data: JSONValue) -> JSONValue {
        .object(["t": "c", "d": .object(["t": .string(type), "d": data])])
    }

    /// The text of an outgoing item.
    static func render(_ item: Outgoing) -> String {
        switch item {
        case .envelope(let json): return json.serialized()
        case .event(let event): return push(event).serialized()
        case .delivery(let delivery): return delivery.wire
        }
    }

    /// A listen event as a data push: an overwrite (`d`), a merge (`m`) or a revoked listen (`c`).
    private static func push(_ event: ListenEvent) -> JSONValue {
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
}
