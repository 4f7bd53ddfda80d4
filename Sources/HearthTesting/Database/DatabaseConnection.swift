import DatabaseTree
import EmulatorCore

/// The client's side of one wire protocol v5 connection: requests numbered `r` and matched with their
/// responses, listens with their local views, the server's pushes applied in arrival order. Once closed
/// (by the client or the server) every waiting request fails and every listen ends with `unavailable`.
actor DatabaseConnection {
    /// What a sent request's response goes to.
    enum Pending {
        /// A caller waiting for the response's data.
        case call(CheckedContinuation<Result<JSONValue, ClientError>, Never>)
        /// A listen (`q`), by key and the id of its registration.
        case listen(ListenKey, id: UInt64)
        /// Nobody (`n`).
        case ignored
    }

    private let socket: WireSocket
    /// Why the connection is closed; nil while open.
    private(set) var failure: ClientError?
    private var helloWaiter: CheckedContinuation<Result<Int64, ClientError>, Never>?
    private var nextRequest: Int64 = 1
    private var pending: [Int64: Pending] = [:]

    /// The listens, by location and query (nil for those that load all data: one untagged listen each).
    var listens: [ListenKey: Listen] = [:]
    /// The listens of queries that do not load all data, by tag.
    var tags: [Int: ListenKey] = [:]
    /// The listen of each subscriber (a stream of snapshots).
    var subscriptions: [UInt64: ListenKey] = [:]
    /// The next tag to give a listen.
    var nextTag = 1
    /// The next subscriber (and listen) id.
    var nextID: UInt64 = 1

    /// A connection over `socket`; nothing happens before `start()`.
    init(socket: WireSocket) {
        self.socket = socket
    }

    /// Reads the server's messages until the connection ends; returns the server's time (epoch ms) from its
    /// hello, once it came.
    func start() async throws(ClientError) -> Int64 {
        Task {
            for await message in socket.messages { receive(message) }
            shutDown(.databaseDisconnected)
        }
        return try await withCheckedContinuation { helloWaiter = $0 }.get()
    }

    /// Sends a request and waits for its response's data; a status other than `ok` is a `ClientError`.
    func call(_ action: String, _ body: JSONValue) async throws(ClientError) -> JSONValue {
        if let failure { throw failure }
        return try await withCheckedContinuation { send(action, body, to: .call($0)) }.get()
    }

    /// Sends a request whose response goes to `pending`.
    func send(_ action: String, _ body: JSONValue, to pending: Pending) {
        let number = nextRequest
        nextRequest += 1
        self.pending[number] = pending
        let envelope: JSONValue = ["t": "d", "d": ["r": .int(number), "a": .string(action), "b": body]]
        socket.send(envelope.serialized())
    }

    /// Ends the connection, with a WebSocket close handshake when `goodbye`, else by dropping it (the TCP
    /// connection is reset); returns once it is closed. Idempotent.
    func close(goodbye: Bool) async {
        shutDown(.databaseDisconnected)
        if goodbye {
            await socket.close()
        } else {
            await socket.cut()
        }
    }

    /// Marks the connection closed: waiting requests fail and listens end with `error`.
    private func shutDown(_ error: ClientError) {
        guard failure == nil else { return }
        failure = error
        helloWaiter?.resume(returning: .failure(error))
        helloWaiter = nil
        for case .call(let continuation) in pending.values { continuation.resume(returning: .failure(error)) }
        pending = [:]
        for listen in listens.values {
            for subscriber in listen.subscribers.values { subscriber.continuation.finish(throwing: error) }
        }
        listens = [:]
        tags = [:]
        subscriptions = [:]
    }

    // MARK: - Receiving

    /// Handles one message from the server.
    private func receive(_ text: String) {
        guard failure == nil, let envelope = try? JSONValue.parse(text), let message = envelope["d"] else { return }
        switch envelope["t"]?.stringValue {
        case "c":
            control(message["t"]?.stringValue ?? "", message["d"] ?? .null)
        case "d":
            let body = message["b"] ?? .null
            if let number = message["r"]?.intValue {
                respond(number, status: body["s"]?.stringValue ?? "", data: body["d"] ?? .null)
            } else if let action = message["a"]?.stringValue {
                push(action, body)
            }
        default:
            break
        }
    }

    /// A control message: the hello (`h`), or the server shutting the connection (`s`); pongs and errors
    /// need nothing.
    private func control(_ type: String, _ data: JSONValue) {
        switch type {
        case "h":
            helloWaiter?.resume(returning: .success(data["ts"]?.intValue ?? 0))
            helloWaiter = nil
        case "s":
            shutDown(ClientError(.unavailable, message: "The server shut the connection: \(data.stringValue ?? "")"))
        default:
            break
        }
    }

    /// A response: to a caller, or to a listen.
    private func respond(_ number: Int64, status: String, data: JSONValue) {
        switch pending.removeValue(forKey: number) {
        case .call(let continuation)?:
            guard status == "ok" else {
                continuation.resume(returning: .failure(ClientError(databaseStatus: status, data: data)))
                return
            }
            continuation.resume(returning: .success(data))
        case .listen(let key, let id)?:
            listenResponded(key, id: id, status: status, data: data)
        case .ignored?, nil:
            break
        }
    }

    /// A server push: data (`d` overwrite, `m` merge) or a revoked listen (`c`).
    private func push(_ action: String, _ body: JSONValue) {
        let location = DatabasePath(body["p"]?.stringValue ?? "")
        let tag = body["t"]?.intValue.map { Int($0) }
        switch action {
        case "d":
            guard let node = try? DataNode(json: body["d"] ?? .null) else { return }
            deliver([(location, node)], tag: tag)
        case "m":
            var changes: [(path: DatabasePath, node: DataNode)] = []
            for (relative, json) in body["d"]?.objectValue ?? [:] {
                guard let node = try? DataNode(json: json) else { return }
                changes.append((location.appending(DatabasePath(relative)), node))
            }
            deliver(changes, tag: tag)
        case "c":
            revoke(at: location, queries: body["q"]?.arrayValue ?? [])
        default:
            break
        }
    }
}
