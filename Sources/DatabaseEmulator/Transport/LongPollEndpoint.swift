import EmulatorCore
import EmulatorHTTP
import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// The wire protocol v5 over long polling (`/.lp`), the transport the JS SDK falls back to when WebSockets
/// fail or are turned off (`forceLongPolling()`), as production and the official emulator serve it. The
/// protocol above the transport is the WebSocket's: each session drives one `WireConnection`.
///
/// - `GET /.lp?start=t&ser=…&cb=N&v=5&ns=…[&ls=<last session>]` opens a session (ending the last one if it
///   lingers): a script that registers forwarding functions for the page's `pLPCommand<N>` / `pRTLPCB<N>`,
///   hands the session id and password over (`pLPCommand('start', id, pw)`), and delivers the hello as
///   packet 0.
/// - `GET /.lp?id=…&pw=…&ser=…[&seg<i>=&ts<i>=&d<i>=…]` carries the client's frames (web-safe base64 of the
///   JSON, `.` padding, split into numbered segments that are reassembled across requests) and is a poll:
///   it is answered at once when frames wait, else held up to 20 s. A newer request releases the one held
///   (empty); each answer with frames is `pRTLPCB(<next packet number>, [frames])`.
/// - `GET /.lp?dframe=t&id=…&pw=…` is a page whose unload tells the server (`disconn=t`, by beacon) that the
///   tab went away; `disconn=t` ends the session at once. A session with no request for 60 s ends too. An
///   ended session's onDisconnect writes run.
/// - A WebSocket opened with `s=<session id>` takes the session over (the SDK's upgrade): pings are
///   answered, and once the client sends `n` (end of transmission) on the long poll, the rest of the
///   long poll's frames and an `n` go out as its last packet with `pLPCommand('close', …)`, and from then on
///   the connection's frames travel on the WebSocket.
final class LongPollEndpoint: Sendable {
    let databases: Databases
    /// The open sessions by id, and whether the task ending idle ones runs.
    private let registry = Mutex<(sessions: [String: LongPollSession], sweeping: Bool)>(([:], false))
    private let counter = Atomic<UInt64>(0)

    /// How long a poll is held when nothing waits (below the client's 25 s).
    static let holdTime = Duration.seconds(20)
    /// A session without any request for this long has gone.
    static let idleLimit = Duration.seconds(60)
    /// The largest reassembled message accepted.
    static let messageLimit = WebSocketEndpoint.messageLimit

    init(databases: Databases) {
        self.databases = databases
    }

    /// Answers one `/.lp` request of `namespace`, arriving at `host`.
    func respond(_ request: Request, fields: FormFields, namespace: String, host: String) async -> Response {
        if fields["start"] == "t" { return await start(fields: fields, namespace: namespace, host: host) }
        guard let id = fields["id"], let password = fields["pw"], let session = session(id, password) else {
            // Not 2xx: the page's script fails, the SDK drops the transport and connects again.
            return Response(status: .notFound, body: ResponseBody(byteBuffer: .init(string: "Unknown long-polling session.")))
        }
        if fields["dframe"] == "t" { return disconnectFrame(session, namespace: namespace) }
        if fields["disconn"] == "t" {
            end(session)
            return Self.script("")
        }
        var segments: [LongPollSession.Segment] = []
        var index = 0
        while let number = fields["seg\(index)"].flatMap(Int.init), let total = fields["ts\(index)"].flatMap(Int.init),
            let data = fields["d\(index)"]
        {
            segments.append(LongPollSession.Segment(number: number, total: total, data: data))
            index += 1
        }
        if !session.receive(segments) {
            end(session)
            return Self.script("pLPCommand('close');")
        }
        return Self.script(await session.poll(serial: fields["ser"].flatMap(Int.init) ?? 0))
    }

    /// The session a WebSocket with `s=<id>` upgrades, if it is open.
    func upgradable(_ id: String) -> LongPollSession? {
        registry.withLock { $0.sessions[id] }
    }

    /// Forgets a session whose connection moved to a WebSocket (its end is the WebSocket's now).
    func handedOver(_ session: LongPollSession) {
        _ = registry.withLock { $0.sessions.removeValue(forKey: session.id) }
    }

    private func session(_ id: String, _ password: String) -> LongPollSession? {
        registry.withLock { $0.sessions[id] }.flatMap { $0.password == password ? $0 : nil }
    }

    private func start(fields: FormFields, namespace: String, host: String) async -> Response {
        guard let callback = fields["cb"], !callback.isEmpty, callback.utf8.count <= 16, callback.allSatisfy(\.isASCII),
            callback.allSatisfy(\.isNumber)
        else {
            return Response(status: .badRequest, body: ResponseBody(byteBuffer: .init(string: "Invalid long-polling callback.")))
        }
        // A reconnecting client names its last session (`ls`): if it still lingers, it is over now.
        if let last = fields["ls"], let lingering = registry.withLock({ $0.sessions[last] }) { end(lingering) }
        let number = counter.add(1, ordering: .relaxed).newValue
        let id = "lp\(number)"
        let session = LongPollSession(
            id: id, password: RandomID.make(length: 16), connection: WireConnection(database: databases.database(namespace)),
            endpoint: self)
        let startSweeping = registry.withLock { registry in
            registry.sessions[id] = session
            defer { registry.sweeping = true }
            return !registry.sweeping
        }
        if startSweeping { sweep() }
        session.connection.open(host: host, sessionID: id)
        let hello = await session.poll(serial: .min)  // the hello, packet 0, as soon as the outbox hands it over
        return Self.script(
            """
            function pLPCommand(c, a1, a2, a3, a4) { var f = parent.window["pLPCommand\(callback)"]; if (f) f(c, a1, a2, a3, a4); }
            function pRTLPCB(n, data) { var f = parent.window["pRTLPCB\(callback)"]; if (f) f(n, data); }
            pLPCommand('start', '\(id)', '\(session.password)');
            \(hello)
            """)
    }

    /// The page the SDK keeps open in a hidden frame while connected: when it unloads (the tab closes or
    /// navigates), a beacon tells the server the client is gone.
    private func disconnectFrame(_ session: LongPollSession, namespace: String) -> Response {
        let target = "/.lp?disconn=t&id=\(session.id)&pw=\(session.password)&ns=\(namespace.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
        return .uncached(
            """
            <!doctype html><html><body><script>
            addEventListener("pagehide", function () { navigator.sendBeacon("\(target)"); });
            </script></body></html>
            """,
            contentType: "text/html; charset=utf-8")
    }

    /// Ends a session: its listens end, its onDisconnect writes run, a held poll is told to close.
    func end(_ session: LongPollSession) {
        guard registry.withLock({ $0.sessions.removeValue(forKey: session.id) }) != nil else { return }
        session.end()
    }

    /// Ends every session (the emulator stops).
    func endAll() {
        let sessions = registry.withLock { registry in
            defer { registry.sessions = [:] }
            return Array(registry.sessions.values)
        }
        for session in sessions { session.end() }
    }

    /// Ends the sessions no request has reached for `idleLimit`, every few seconds while any is open.
    private func sweep() {
        Task.detached { [self] in
            while true {
                try? await Task.sleep(for: .seconds(5))
                let now = ContinuousClock.now
                let idle = registry.withLock { registry -> [LongPollSession]? in
                    if registry.sessions.isEmpty {
                        registry.sweeping = false
                        return nil
                    }
                    return registry.sessions.values.filter { now - $0.lastContact > Self.idleLimit }
                }
                guard let idle else { return }
                for session in idle { end(session) }
            }
        }
    }

    /// A script answer: JavaScript, never cached.
    static func script(_ body: String) -> Response {
        .uncached(body, contentType: "application/javascript; charset=utf-8")
    }
}

/// One long-polling client: its connection, the client's segments being reassembled, the frames waiting
/// for a poll, and the poll held open.
final class LongPollSession: Sendable {
    /// One segment of a client message.
    struct Segment {
        /// Its number among all the session's segments.
        var number: Int
        /// How many segments its message has.
        var total: Int
        /// Its part of the message's encoding.
        var data: String
    }

    let id: String
    let password: String
    let connection: WireConnection
    private let endpoint: LongPollEndpoint
    private let state: Mutex<State>

    private struct State {
        var nextSegment = 0
        var segments: [Int: Segment] = [:]
        var bufferedBytes = 0
        /// Rendered frames waiting for a poll.
        var frames: [String] = []
        /// The next packet number (the hello is 0).
        var packet = 0
        var held: (serial: Int, token: UInt64, continuation: CheckedContinuation<String, Never>)?
        var nextToken: UInt64 = 0
        var lastContact = ContinuousClock.now
        /// The connection ended (or moved to a WebSocket after `closeAfter`): the next answer says close.
        var closing = false
        /// After the hand-over: the long poll's last packet number.
        var closeAfter: Int?
        /// After the hand-over: where frames go instead.
        var webSocket: AsyncStream<String>.Continuation?
        /// A WebSocket waiting to take over, until the client ends transmission on the long poll.
        var upgrading: AsyncStream<String>.Continuation?
    }

    init(id: String, password: String, connection: WireConnection, endpoint: LongPollEndpoint) {
        self.id = id
        self.password = password
        self.connection = connection
        self.endpoint = endpoint
        state = Mutex(State())
        Task.detached { [self] in
            for await item in connection.outbox.items {
                connection.outbox.taken()
                let frame = WireStateMachine.render(item)
                let release = state.withLock { state -> (CheckedContinuation<String, Never>, String)? in
                    if let webSocket = state.webSocket {
                        webSocket.yield(frame)
                        return nil
                    }
                    state.frames.append(frame)
                    return Self.releaseHeld(&state)
                }
                if let (continuation, body) = release { continuation.resume(returning: body) }
            }
            let release = state.withLock { state -> (CheckedContinuation<String, Never>, String)? in
                state.webSocket?.finish()
                state.closing = true
                return Self.releaseHeld(&state)
            }
            if let (continuation, body) = release { continuation.resume(returning: body) }
        }
    }

    /// When the last request came.
    var lastContact: ContinuousClock.Instant { state.withLock { $0.lastContact } }

    /// Reassembles `segments` and hands each completed message to the connection, in order; false when the
    /// client sent something that ends the connection (not the protocol, or too large).
    func receive(_ segments: [Segment]) -> Bool {
        let messages = state.withLock { state -> [String]? in
            state.lastContact = .now
            for segment in segments where segment.number >= state.nextSegment && segment.total >= 1 {
                state.segments[segment.number] = segment
                state.bufferedBytes += segment.data.utf8.count
            }
            guard state.bufferedBytes <= LongPollEndpoint.messageLimit * 2 else { return nil }
            var messages: [String] = []
            while let first = state.segments[state.nextSegment] {
                let range = state.nextSegment..<(state.nextSegment + first.total)
                guard range.allSatisfy({ state.segments[$0] != nil }) else { break }
                let encoded = range.map { state.segments.removeValue(forKey: $0)!.data }.joined()
                state.bufferedBytes -= encoded.utf8.count
                state.nextSegment = range.upperBound
                guard let message = Self.decode(encoded) else { return nil }
                messages.append(message)
            }
            return messages
        }
        guard let messages else { return false }
        for message in messages {
            if Self.isEndOfTransmission(message) {
                if handOver() { endpoint.handedOver(self) }
                continue
            }
            if !connection.receive(message) { return false }
        }
        return true
    }

    /// This request's answer: what waits, or what comes within the hold time, or nothing (a newer request
    /// took the poll over, or time ran out).
    func poll(serial: Int) async -> String {
        let token = state.withLock { state -> UInt64 in
            state.nextToken += 1
            return state.nextToken
        }
        let body = await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            let releases = state.withLock { state -> [(CheckedContinuation<String, Never>, String)] in
                state.lastContact = .now
                if let body = Self.body(&state) { return [(continuation, body)] }
                if let held = state.held {
                    if held.serial > serial { return [(continuation, "")] }  // an older request: answered at once
                    state.held = (serial, token, continuation)
                    return [(held.continuation, "")]
                }
                state.held = (serial, token, continuation)
                return []
            }
            for (waiting, body) in releases { waiting.resume(returning: body) }
            Task.detached { [self] in
                try? await Task.sleep(for: LongPollEndpoint.holdTime)
                let expired = state.withLock { state -> CheckedContinuation<String, Never>? in
                    guard let held = state.held, held.token == token else { return nil }
                    state.held = nil
                    return held.continuation
                }
                expired?.resume(returning: "")
            }
        }
        state.withLock { $0.lastContact = .now }
        return body
    }

    /// The connection is over: the held poll is told to close, the connection closes (onDisconnect).
    func end() {
        let release = state.withLock { state -> (CheckedContinuation<String, Never>, String)? in
            state.closing = true
            return Self.releaseHeld(&state)
        }
        if let (continuation, body) = release { continuation.resume(returning: body) }
        connection.close()
    }

    /// A WebSocket (`/.ws?s=<id>`) takes the session over: its frames wait in the returned stream until
    /// the client ends transmission on the long poll.
    func upgrade() -> (frames: AsyncStream<String>, replies: AsyncStream<String>.Continuation) {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        state.withLock { $0.upgrading = continuation }
        return (stream, continuation)
    }

    /// A WebSocket that was to take over went away: the long poll goes on if it had not handed over.
    func upgradeFailed() -> Bool {
        state.withLock { state in
            if state.webSocket != nil { return false }
            state.upgrading?.finish()
            state.upgrading = nil
            return true
        }
    }

    /// The client ended transmission on the long poll (`n`): what waits goes out with an `n` as the long
    /// poll's last packet, and the connection's frames go to the WebSocket from now on.
    private func handOver() -> Bool {
        let (handed, release) = state.withLock { state -> (Bool, (CheckedContinuation<String, Never>, String)?) in
            guard let webSocket = state.upgrading else { return (false, nil) }
            state.upgrading = nil
            state.frames.append(WireStateMachine.control("n", .object([:])).serialized())
            state.webSocket = webSocket
            state.closeAfter = state.packet
            return (true, Self.releaseHeld(&state))
        }
        if let (continuation, body) = release { continuation.resume(returning: body) }
        return handed
    }

    /// The held poll and the answer for it, if there is one and something to say.
    private static func releaseHeld(_ state: inout State) -> (CheckedContinuation<String, Never>, String)? {
        guard let held = state.held, let body = body(&state) else { return nil }
        state.held = nil
        return (held.continuation, body)
    }

    /// The waiting frames as the next packet, and a close when the session is over; `nil` when there is
    /// nothing to say.
    private static func body(_ state: inout State) -> String? {
        var body = ""
        if !state.frames.isEmpty {
            body = "pRTLPCB(\(state.packet), [\(state.frames.joined(separator: ","))]);"
            state.frames = []
            state.packet += 1
        }
        if let last = state.closeAfter, state.frames.isEmpty {
            body += "pLPCommand('close', \(last));"
        } else if state.closing {
            body += "pLPCommand('close');"
        }
        return body.isEmpty ? nil : body
    }

    /// A message's web-safe base64 (`-`, `_`, `.` for padding) decoded to text; `nil` if it is not base64.
    static func decode(_ encoded: String) -> String? {
        Data(base64URLEncoded: encoded.filter { $0 != "." }).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether `message` is the client's end of transmission (`{"t":"c","d":{"t":"n"}}`).
    private static func isEndOfTransmission(_ message: String) -> Bool {
        guard message.utf8.count < 64, let json = try? JSONValue.parse(message) else { return false }
        return json["t"]?.stringValue == "c" && json["d"]?["t"]?.stringValue == "n"
    }
}
