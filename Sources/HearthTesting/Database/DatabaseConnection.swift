import DatabaseTree
import EmulatorCore

/// The client's side of one wire protocol v5 connection: requests numbered `r` and matched with their
/// responses, listens with their local views, the server's pushes applied in arrival order. A wait for the
/// server (its hello, a response) ends at a deadline or when the waiting task is cancelled. Once closed
/// (by the client or the server) every waiting request fails and every listen ends with `unavailable`.
actor DatabaseConnection {
    /// How long the connection waits for the server.
    struct Deadlines: Sendable {
        /// For the hello, once the WebSocket is open.
        var hello: Duration = .seconds(10)
        /// For each request's response.
        var response: Duration = .seconds(60)
    }

    /// A caller waiting for a response, resumed once: by the response, its deadline, its task's
    /// cancellation or the connection closing.
    struct Waiter {
        let continuation: CheckedContinuation<Result<JSONValue, ClientError>, Never>
        /// Fails the wait when it passes; cancelled when the wait ends otherwise.
        let deadline: Task<Void, Never>

        func resume(_ result: Result<JSONValue, ClientError>) {
            deadline.cancel()
            continuation.resume(returning: result)
        }
    }

    /// What a sent request's response goes to.
    enum Pending {
        /// A caller waiting for the response's data.
        case call(Waiter)
        /// A listen (`q`), by key and the id of its registration.
        case listen(ListenKey, id: UInt64)
        /// Nobody (`n`).
        case ignored
    }

    /// The socket; `DatabaseClient` closes it from outside the actor when dropped.
    nonisolated let socket: WireSocket
    private let deadlines: Deadlines
    /// Why the connection is closed; nil while open.
    private(set) var failure: ClientError?
    private var nextRequest: Int64 = 1
    /// What each response goes to, by request number; the hello is awaited as request 0.
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
    init(socket: WireSocket, deadlines: Deadlines = Deadlines()) {
        self.socket = socket
        self.deadlines = deadlines
    }

    /// Reads the server's messages until the connection ends; returns the server's time (epoch ms) from its
    /// hello, once it came.
    func start() async throws(ClientError) -> Int64 {
        let hello = try await wait(for: 0, within: deadlines.hello, what: "the server's hello") {
            Task {
                for await message in socket.messages { receive(message) }
                shutDown(.databaseDisconnected)
            }
        }
        return hello["ts"]?.intValue ?? 0
    }

    /// Sends a request and waits for its response's data; a status other than `ok` is a `ClientError`.
    func call(_ action: String, _ body: JSONValue) async throws(ClientError) -> JSONValue {
        let number = nextRequest
        nextRequest += 1
        return try await wait(for: number, within: deadlines.response, what: "the response to `\(action)`") {
            socket.send(Self.request(number, action, body))
        }
    }

    /// Sends a request whose response goes to `pending`.
    func send(_ action: String, _ body: JSONValue, to pending: Pending) {
        let number = nextRequest
        nextRequest += 1
        self.pending[number] = pending
        socket.send(Self.request(number, action, body))
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

    /// Waits for response `number` after `then` (which sends the request) ran: for its data, or until the
    /// deadline passes (`deadlineExceeded`), the task is cancelled (`cancelled`) or the connection closes.
    /// A response that comes after the wait ended is ignored.
    private func wait(
        for number: Int64, within timeout: Duration, what: String, then start: () -> Void
    ) async throws(ClientError) -> JSONValue {
        if let failure { throw failure }
        if Task.isCancelled { throw ClientError(.cancelled, message: "Cancelled before waiting for \(what)") }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let deadline = Task {
                    guard (try? await Task.sleep(for: timeout)) != nil else { return }
                    let message = "Gave up waiting for \(what) after \(timeout)"
                    abandon(number, with: ClientError(.deadlineExceeded, message: message))
                }
                pending[number] = .call(Waiter(continuation: continuation, deadline: deadline))
                start()
            }
        } onCancel: {
            let error = ClientError(.cancelled, message: "Cancelled while waiting for \(what)")
            Task { await self.abandon(number, with: error) }
        }
        return try result.get()
    }

    /// Ends the wait for response `number`, if a caller still waits for it, with `error`.
    private func abandon(_ number: Int64, with error: ClientError) {
        guard case .call(let waiter)? = pending[number] else { return }
        pending[number] = nil
        waiter.resume(.failure(error))
    }

    /// `{"t": "d", "d": {"r": number, "a": action, "b": body}}`, serialized.
    private static func request(_ number: Int64, _ action: String, _ body: JSONValue) -> String {
        let envelope: JSONValue = ["t": "d", "d": ["r": .int(number), "a": .string(action), "b": body]]
        return envelope.serialized()
    }

    /// Marks the connection closed: waiting requests fail and listens end with `error`.
    private func shutDown(_ error: ClientError) {
        guard failure == nil else { return }
        failure = error
        for case .call(let waiter) in pending.values { waiter.resume(.failure(error)) }
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

    /// A control message: the hello (`h`, the answer to "request" 0), or the server shutting the connection
    /// (`s`: the client closes it, as the SDKs do); pongs and errors need nothing.
    private func control(_ type: String, _ data: JSONValue) {
        switch type {
        case "h":
            respond(0, status: "ok", data: data)
        case "s":
            shutDown(ClientError(.unavailable, message: "The server shut the connection: \(data.stringValue ?? "")"))
            socket.sayGoodbye()
        default:
            break
        }
    }

    /// A response: to a caller, or to a listen.
    private func respond(_ number: Int64, status: String, data: JSONValue) {
        switch pending.removeValue(forKey: number) {
        case .call(let waiter)?:
            waiter.resume(status == "ok" ? .success(data) : .failure(ClientError(databaseStatus: status, data: data)))
        case .listen(let key, let id)?:
            listenResponded(key, id: id, status: status, data: data)
        case .ignored?, nil:
            break
        }
    }

    /// A server push: data (`d` overwrite, `m` merge) or a revoked listen (`c`). Data this client cannot
    /// store ends the listens it was for with `internal`: their views could no longer follow the server.
    private func push(_ action: String, _ body: JSONValue) {
        let location = DatabasePath(body["p"]?.stringValue ?? "")
        let tag = body["t"]?.intValue.map { Int($0) }
        do throws(InvalidData) {
            switch action {
            case "d":
                deliver([(location, try DataNode(json: body["d"] ?? .null))], tag: tag)
            case "m":
                var changes: [(path: DatabasePath, node: DataNode)] = []
                for (relative, json) in body["d"]?.objectValue ?? [:] {
                    changes.append((location.appending(DatabasePath(relative)), try DataNode(json: json)))
                }
                deliver(changes, tag: tag)
            case "c":
                revoke(at: location, queries: body["q"]?.arrayValue ?? [])
            default:
                break
            }
        } catch {
            let message = "The server sent data at \(location) that cannot be stored: \(error.message)"
            end(listensAt: location, tag: tag, with: ClientError(.internal, message: message))
        }
    }
}
