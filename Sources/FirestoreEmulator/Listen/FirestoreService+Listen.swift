import EmulatorCore
import Synchronization

/// One client message of a listen stream, decoded by its transport (gRPC `ListenRequest`, or the same
/// message as the web SDK's WebChannel JSON).
struct ListenRequest: Sendable {
    /// The request's `database` resource name; the first one decides the stream's database.
    var database: String
    /// What the client asks for.
    var change: Change?

    /// A target added or removed.
    enum Change: Sendable {
        /// Listen to the target `targetID`, decoded in the stream's database by `target` (a target that
        /// cannot be decoded is refused: REMOVE with the error as its cause).
        case add(targetID: Int32, target: @Sendable (DatabaseName) throws(FirestoreError) -> ListenTarget)
        /// Stop listening to a target.
        case remove(Int32)
    }
}

/// What an async listen loop reads, in arrival order: the client's requests, put in by a task that reads
/// them from the transport's async sequence (`take`), and the store's commits, yielded in by the feed
/// directly. (The event-loop path, `ListenCall`, needs none: its transport hands it each request.)
final class ListenInbox: Sendable {
    fileprivate let inputs: AsyncStream<ListenInput>
    fileprivate let continuation: AsyncStream<ListenInput>.Continuation
    /// Set when an input could not be held: the stream is too far behind and ends.
    fileprivate let behind = Flag()

    /// An inbox for a stream whose loop holds at most `limit` inputs (the commit feed's backlog).
    fileprivate init(limit: Int) {
        (inputs, continuation) = AsyncStream<ListenInput>.makeStream(bufferingPolicy: .bufferingOldest(limit))
    }

    /// Puts the client's next request in (a request the loop cannot hold means the stream is 10,000 inputs
    /// behind: it ends with RESOURCE_EXHAUSTED).
    func put(_ request: ListenRequest) {
        if case .dropped = continuation.yield(.request(request)) { behind.set() }
    }

    /// The client ended its requests: held snapshots may still be due; the loop ends once the stream is done.
    func finish() {
        if case .dropped = continuation.yield(.requestsEnded) {
            behind.set()
            continuation.finish()
        }
    }

    /// The client's requests failed (a message its transport could not read): the stream ends with `error`.
    func fail(_ error: any Error) {
        continuation.yield(.requestsFailed(error))
        continuation.finish()
    }

    /// The client went away: the stream ends.
    func cancel() {
        continuation.finish()
    }

    /// Puts every request of `requests` in, then ends them (or fails or cancels the stream as they do).
    func take(_ requests: some AsyncSequence<ListenRequest, any Error>) async {
        do {
            for try await request in requests { put(request) }
            finish()
        } catch is CancellationError {
            cancel()
        } catch {
            fail(error)
        }
    }
}

/// One input of the listen loop.
private enum ListenInput: Sendable {
    case request(ListenRequest)
    case commit(CommitFeed.Entry)
    /// Every commit published before the oldest held snapshot's target was read has been fed in.
    case caughtUp
    /// The client ended its requests.
    case requestsEnded
    /// The client's requests failed (a message its transport could not read): the stream ends with it.
    case requestsFailed(any Error)
}

/// Snapshot listeners, whatever their transport. Targets come from the client, commits from the store's
/// feed; one loop feeds both, in arrival order, to a `ListenSession` and hands back the events it returns.
extension FirestoreService {
    /// A new listen stream's inbox.
    private func listenInbox() -> ListenInbox {
        ListenInbox(limit: feed.limit)
    }

    /// Serves one listen stream: `requests` are the client's, `send` delivers a batch of events in the
    /// stream's database (one commit's changes and its snapshot go in one batch). Returns when the client
    /// ends its requests; throws the `FirestoreError` that ends the stream otherwise (an invalid database,
    /// or RESOURCE_EXHAUSTED for a stream too far behind the writes), or the error its requests failed with.
    func serveListen(
        _ requests: some AsyncSequence<ListenRequest, any Error> & Sendable, credential: Credential,
        send: (_ events: [ListenEvent], _ database: DatabaseName) async throws -> Void
    ) async throws {
        try await withListenInbox(feeding: requests) { try await serveListen($0, credential: credential, send: send) }
    }

    /// Runs `body` with a new listen inbox that a task of its own fills from `requests`.
    private func withListenInbox(
        feeding requests: some AsyncSequence<ListenRequest, any Error> & Sendable, _ body: (ListenInbox) async throws -> Void
    ) async throws {
        let inbox = listenInbox()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await inbox.take(requests) }
            try await body(inbox)
            group.cancelAll()
        }
    }

    /// Serves one listen stream whose requests are put into `inbox`; as `serveListen(_:credential:send:)`
    /// otherwise.
    private func serveListen(
        _ inbox: ListenInbox, credential: Credential,
        send: (_ events: [ListenEvent], _ database: DatabaseName) async throws -> Void
    ) async throws {
        // Requests and commits arrive in one stream; commits are yielded into it by the store's feed directly.
        let continuation = inbox.continuation
        let behind = inbox.behind
        var listening: (database: DatabaseName, subscription: Int)?
        defer { if let listening { feed.unsubscribe(listening.subscription, from: listening.database) } }
        var stream = ListenStream(service: self, credential: credential)
        for await input in inbox.inputs {
            let events: [ListenEvent]
            switch input {
            case .request(let request):
                events = try stream.receive(request) { (database) throws(FirestoreError) in
                    // Subscribed before any target is read: no commit falls between a target's results
                    // and its updates.
                    let (_, subscription, _) = try store.listen(
                        database, subscribe: { $0.subscribe(database, into: continuation) { .commit($0) } }
                    ) { (_: inout DatabaseView) throws(FirestoreError) in () }
                    listening = (database, subscription)
                } awaitCatchUp: {
                    // The feed hands this out after every commit published so far, in order.
                    feed.afterPublished {
                        // A stream too far behind to hold it is ended (RESOURCE_EXHAUSTED, below).
                        if case .dropped = continuation.yield(.caughtUp) {
                            behind.set()
                            continuation.finish()
                        }
                    }
                }
            case .commit(let entry):
                events = try stream.apply(entry)
            case .caughtUp:
                events = stream.caughtUp()
            case .requestsEnded:
                stream.endRequests()
                events = []
            case .requestsFailed(let error):
                throw error
            }
            if let database = stream.database, !events.isEmpty { try await send(events, database) }
            if stream.isDone { break }
        }
        if behind.isSet || listening.map({ feed.takeOverflow(of: $0.subscription) }) == true {
            throw FirestoreError.listenerBehind
        }
    }
}

/// A flag set once from any task.
private final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    /// Sets the flag.
    func set() { value.store(true, ordering: .relaxed) }
    /// Whether it was set.
    var isSet: Bool { value.load(ordering: .relaxed) }
}
