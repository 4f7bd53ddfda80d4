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

/// Snapshot listeners, whatever their transport. Targets come from the client, commits from the store's
/// feed; one loop feeds both, in arrival order, to a `ListenSession` and hands back the events it returns.
extension FirestoreService {
    /// One input of the listen loop.
    private enum ListenInput: Sendable {
        case request(ListenRequest)
        case commit(CommitFeed.Entry)
        /// Every commit published before the oldest held snapshot's target was read has been fed in.
        case caughtUp
    }

    /// Serves one listen stream: `requests` are the client's, `send` delivers a batch of events in the
    /// stream's database (one commit's changes and its snapshot go in one batch). Returns when the client
    /// ends its requests; throws the `FirestoreError` that ends the stream otherwise (an invalid database,
    /// or RESOURCE_EXHAUSTED for a stream too far behind the writes).
    func serveListen(
        _ requests: some AsyncSequence<ListenRequest, any Error> & Sendable, credential: Credential,
        send: (_ events: [ListenEvent], _ database: DatabaseName) async throws -> Void
    ) async throws {
        // Requests and commits arrive in one stream; commits are yielded into it by the store's feed directly.
        let (inputs, continuation) = AsyncStream<ListenInput>.makeStream(bufferingPolicy: .bufferingOldest(feed.limit))
        var listening: (database: DatabaseName, subscription: Int)?
        let behind = Flag()
        defer { if let listening { feed.unsubscribe(listening.subscription, from: listening.database) } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    for try await request in requests {
                        // A request the stream cannot hold means the stream is 10,000 messages behind.
                        if case .dropped = continuation.yield(.request(request)) { behind.set() }
                    }
                } catch {
                    // The client went away: the stream ends.
                }
                continuation.finish()
            }
            var session = ListenSession()
            for await input in inputs {
                var events: [ListenEvent] = []
                switch input {
                case .request(let request):
                    if listening == nil {
                        // Subscribed before any target is read: no commit falls between a target's results
                        // and its updates.
                        let database = try DatabaseName(validating: request.database)
                        let (_, subscription, _) = try store.listen(
                            database, subscribe: { $0.subscribe(database, into: continuation) { .commit($0) } }
                        ) { (_: inout DatabaseView) throws(FirestoreError) in () }
                        listening = (database, subscription)
                    }
                    let waiting = session.waitingForCatchUp
                    events = handle(request.change, session: &session, database: listening!.database, credential: credential)
                    if session.waitingForCatchUp > waiting {
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
                    guard let database = listening?.database else { continue }
                    events = try session.apply(entry.changes, at: entry.commitTime, in: database) {
                        (target) throws(FirestoreError) in try rerun(target, database: database, at: entry.commitTime)
                    }
                case .caughtUp:
                    events = session.caughtUp()
                }
                guard let database = listening?.database, !events.isEmpty else { continue }
                try await send(events, database)
            }
            group.cancelAll()
            if behind.isSet || listening.map({ feed.takeOverflow(of: $0.subscription) }) == true {
                throw FirestoreError(.resourceExhausted, "The listener fell too far behind the writes; reconnect to resume.")
            }
        }
    }

    /// Adds or removes a target.
    private func handle(
        _ change: ListenRequest.Change?, session: inout ListenSession, database: DatabaseName, credential: Credential
    ) -> [ListenEvent] {
        switch change {
        case .remove(let id):
            return session.remove(id)
        case .add(let id, let decode):
            let target: ListenTarget
            do {
                target = try decode(database)
            } catch {
                return session.refuse(id, because: error)
            }
            do {
                let previous = resumeTime(of: target).flatMap { try? rerun(target, database: database, at: $0) }
                let (results, readTime, deleted) = try initialResults(
                    of: target, database: database, credential: credential, previous: previous ?? [])
                return session.add(
                    target, results: results, readTime: readTime, in: database,
                    resumed: previous.map { ListenSession.Resumed(previous: $0, deleted: deleted) }, holdingSnapshot: true)
            } catch {
                return session.refuse(target.id, because: error)
            }
        case nil:
            return []
        }
    }

    /// The target's documents now, decided by the rules, the time they were read at, and which of the
    /// `previous` documents no longer exist.
    private func initialResults(
        of target: ListenTarget, database: DatabaseName, credential: Credential, previous: [Document]
    ) throws(FirestoreError) -> ([Document], Timestamp, deleted: Set<DocumentPath>) {
        let now = Timestamp(clock.now())
        let ((documents, deleted), stamp) = try store.read(database) {
            (view: inout DatabaseView) throws(FirestoreError) -> ([Document], Set<DocumentPath>) in
            let documents: [Document]
            switch target.kind {
            case .query(let query):
                try rules.authorizeQuery(query, credential: credential, view: view, time: now)
                documents = view.run(query)
            case .documents(let paths):
                for path in paths { try rules.authorizeGet(path, credential: credential, view: view, time: now) }
                documents = paths.compactMap { view.document(at: $0) }
            }
            return (documents, Set(previous.map(\.path).filter { view.document(at: $0) == nil }))
        }
        return (documents, stamp.readTime, deleted)
    }

    /// When a resumed target's client was last up to date (its resume token's or read time's time), if
    /// that is in the past.
    private func resumeTime(of target: ListenTarget) -> Timestamp? {
        let time: Timestamp?
        switch target.resume {
        case .none: time = nil
        case .token(let token): time = Timestamp(resumeToken: token)
        case .readTime(let readTime): time = readTime
        }
        return time.flatMap { $0 <= Timestamp(clock.now()) ? $0 : nil }
    }

    /// A target's results as of `time`, for targets whose membership depends on other documents.
    private func rerun(_ target: ListenTarget, database: DatabaseName, at time: Timestamp) throws(FirestoreError) -> [Document] {
        let (documents, _) = try store.read(database, consistency: .readTime(time)) {
            (view: inout DatabaseView) throws(FirestoreError) -> [Document] in
            switch target.kind {
            case .query(let query): return view.run(query)
            case .documents(let paths): return paths.compactMap { view.document(at: $0) }
            }
        }
        return documents
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
