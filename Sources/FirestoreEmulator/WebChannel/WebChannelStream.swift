import EmulatorCore
import Synchronization

/// The live side of one WebChannel session: its `WebChannelSession` state, its RPC's requests and answers,
/// the wake-ups of its back channel and the forward channels waiting for room.
final class WebChannelStream: Sendable {
    /// The RPC the stream carries.
    enum Method: String, Sendable {
        case listen = "Listen"
        case write = "Write"
    }

    /// The session id (`SID`).
    let id: String
    /// The RPC.
    let method: Method

    /// Hands one request (a map's JSON text) to the RPC, in the order of the maps, and returns the payloads
    /// that answer it at once (a Write session commits as it goes); throws if the map cannot be read.
    private let deliver: @Sendable (String) throws -> [String]
    /// Ends the RPC's requests.
    private let finishRequests: @Sendable () -> Void
    private let state = Mutex(State())

    private struct State {
        var session = WebChannelSession()
        var signal: AsyncStream<Void>.Continuation?
        var senders: [CheckedContinuation<Void, Never>] = []
        var closed = false
        /// When the client last made a request or a back channel closed.
        var lastContact = ContinuousClock.now
        /// When the open back channel last wrote, and how long it may stay silent.
        var lastWrite = ContinuousClock.now
        var keepalive = WebChannelStream.keepalive
    }

    /// The longest a back channel stays silent: a `noop` array goes out after it (the client gives up on a
    /// back channel after 45 s without data).
    static let keepalive = Duration.seconds(20)
    /// How long a session lives without a back channel or a request.
    static let expiry = Duration.seconds(60)
    /// Arrays waiting for a back channel beyond this hold up forward channels' answers, and a listen call
    /// counts its commits as unread (it ends once too far behind, as a gRPC call whose client stops reading).
    static let unsentLimit = 16 * 1024 * 1024
    /// A streaming back channel ends once this much is unacknowledged, so the client reopens it and
    /// acknowledges what it has.
    static let unacknowledgedLimit = 8 * 1024 * 1024

    /// A stream whose requests go to `deliver` until `finishRequests`.
    init(
        id: String, method: Method, deliver: @escaping @Sendable (String) throws -> [String],
        finishRequests: @escaping @Sendable () -> Void
    ) {
        self.id = id
        self.method = method
        self.deliver = deliver
        self.finishRequests = finishRequests
    }

    /// Delivers a forward channel's maps (from map id `offset`) that were not delivered before, after the
    /// client acknowledged the arrays up to `arrayID`, and queues what answers them; returns the forward
    /// channel's answer once there is room for it. Throws if a map cannot be read as a request.
    func receive(_ maps: [String], offset: Int, acknowledging arrayID: Int?) async throws -> String {
        try accept(maps, offset: offset, acknowledging: arrayID)
        await waitForRoom()
        return state.withLock { $0.session.forwardResponse }
    }

    /// Delivers a forward channel's maps as `receive` does, and returns the forward channel's answer if
    /// there is room for it now; `nil` if the answer has to wait (a `receive` of the same maps then waits
    /// for it: maps are delivered once). Throws if a map cannot be read as a request.
    func receiveNow(_ maps: [String], offset: Int, acknowledging arrayID: Int?) throws -> String? {
        try accept(maps, offset: offset, acknowledging: arrayID)
        return state.withLock { state in
            state.closed || state.session.unsentBytes <= Self.unsentLimit ? state.session.forwardResponse : nil
        }
    }

    /// Delivers the maps not delivered before and queues what answers them.
    ///
    /// The maps are delivered and their answers queued under the stream's lock: forward channel requests
    /// may overlap (Closure's WebChannel sends several at once to a page served over HTTP/2), and the RPC
    /// must see its requests, and the client its answers, in order.
    private func accept(_ maps: [String], offset: Int, acknowledging arrayID: Int?) throws {
        let signal = try state.withLock { state throws -> AsyncStream<Void>.Continuation? in
            state.lastContact = .now
            if let arrayID { state.session.acknowledge(through: arrayID) }
            var answered = false
            guard let fresh = state.session.receive(maps, offset: offset) else {
                throw FirestoreError(
                    .invalidArgument, "More than \(WebChannelSession.waitingLimit) forward maps wait for a missing one.")
            }
            for map in fresh {
                for payload in try deliver(map) where !state.closed {
                    state.session.queue(payload)
                    answered = true
                }
            }
            return answered ? state.signal : nil
        }
        signal?.yield()
    }

    /// Queues payloads (JSON array texts) for the back channel, at once: an RPC on an event loop does not
    /// wait for room, it asks `hasRoom` (and ends when the client stays behind).
    func queue(_ payloads: [String]) {
        let signal = state.withLock { state -> AsyncStream<Void>.Continuation? in
            guard !state.closed else { return nil }
            for payload in payloads { state.session.queue(payload) }
            return state.signal
        }
        signal?.yield()
    }

    /// Whether the arrays no back channel has written are within `unsentLimit` (or the stream closed).
    var hasRoom: Bool {
        state.withLock { $0.closed || $0.session.unsentBytes <= Self.unsentLimit }
    }

    /// Returns once the arrays no back channel has written are within `unsentLimit` (or the stream closed).
    private func waitForRoom() async {
        guard state.withLock({ !$0.closed && $0.session.unsentBytes > Self.unsentLimit }) else { return }
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let mustWait = state.withLock { state in
                guard !state.closed, state.session.unsentBytes > Self.unsentLimit else { return false }
                state.senders.append(waiter)
                return true
            }
            if !mustWait { waiter.resume() }
        }
    }

    /// Serves a back channel for a client that has the arrays up to `arrayID`: writes each batch of
    /// arrays as one chunk until the stream closes, another back channel replaces it, or, for a long poll,
    /// after the first batch. A streaming back channel starts with a `noop` if nothing is waiting, so the
    /// client sees bytes at once (else it takes the connection for a buffering proxy).
    func serveBackChannel(
        acknowledging arrayID: Int, longPoll: Bool, timeout: Duration?, write: (String) async throws -> Void
    ) async throws {
        let (signal, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let generation = state.withLock { state -> Int? in
            guard !state.closed else { return nil }
            state.signal?.finish()
            state.signal = wake
            state.lastContact = .now
            state.lastWrite = .now
            state.keepalive = min(timeout ?? Self.keepalive, Self.keepalive)
            let generation = state.session.openBackChannel(acknowledging: arrayID)
            if !longPoll, state.session.lastArrayID <= arrayID { state.session.queue(#"["noop"]"#) }
            return generation
        }
        guard let generation else { return }
        wake.yield()
        defer {
            state.withLock { state in
                state.session.closeBackChannel(generation)
                state.lastContact = .now
            }
        }
        var sentThrough = arrayID
        for await _ in signal {
            let (arrays, senders) = state.withLock { state -> ([WebChannelSession.NumberedArray]?, [CheckedContinuation<Void, Never>]) in
                let arrays = state.session.take(for: generation, after: sentThrough)
                var senders: [CheckedContinuation<Void, Never>] = []
                if state.session.unsentBytes <= Self.unsentLimit { swap(&senders, &state.senders) }
                if arrays?.isEmpty == false { state.lastWrite = .now }
                return (arrays, senders)
            }
            for sender in senders { sender.resume() }
            guard let arrays else { return }
            guard let last = arrays.last else { continue }
            try await write(WebChannelWire.chunk("[" + arrays.map(\.text).joined(separator: ",") + "]"))
            sentThrough = last.id
            if longPoll { return }
            if state.withLock({ $0.session.unacknowledgedBytes > Self.unacknowledgedLimit }) { return }
        }
    }

    /// Keeps the stream alive or ends it: a `noop` for a back channel silent for its keepalive; `false`
    /// (and the stream closed) once it has had neither a back channel nor a request for `expiry`.
    func tick(now: ContinuousClock.Instant) -> Bool {
        let (signal, expired) = state.withLock { state -> (AsyncStream<Void>.Continuation?, Bool) in
            if state.closed { return (nil, true) }
            if state.session.backChannel != nil {
                guard now - state.lastWrite >= state.keepalive else { return (nil, false) }
                state.session.queue(#"["noop"]"#)
                state.lastWrite = now
                return (state.signal, false)
            }
            return (nil, now - state.lastContact >= Self.expiry)
        }
        signal?.yield()
        if expired { close() }
        return !expired
    }

    /// Ends the stream: its RPC stops, its back channel ends, waiting forward channels go on.
    func close() {
        let (signal, senders) = state.withLock { state in
            state.closed = true
            defer { state.senders = [] }
            return (state.signal, state.senders)
        }
        finishRequests()
        signal?.finish()
        for sender in senders { sender.resume() }
    }
}
