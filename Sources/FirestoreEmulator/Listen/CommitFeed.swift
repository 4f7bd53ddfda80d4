import Synchronization

/// Every commit, in commit order, for the listeners of each database. Publishing never waits: each
/// subscriber has its own bounded buffer, and a subscriber that falls `limit` commits behind has its stream
/// finished (its transport then closes the listen stream with an error the SDKs retry), hurting no one else.
final class CommitFeed: Sendable {
    /// One commit as listeners see it.
    struct Entry: Sendable {
        /// The commit's time.
        var commitTime: Timestamp
        /// Each changed document with its states before and after.
        var changes: [(path: DocumentPath, before: Document?, after: Document?)]
    }

    /// How a subscription ended.
    enum Ending: Sendable, Equatable {
        /// The subscriber fell too far behind.
        case overflow
        /// The feed or the subscriber stopped.
        case finished
    }

    private let subscribers = Mutex<[DatabaseName: [Int: AsyncStream<Entry>.Continuation]]>([:])
    private let endings = Mutex<[Int: Ending]>([:])
    private let nextID = Atomic<Int>(0)

    /// The most commits a subscriber may have waiting.
    let limit: Int

    /// A feed whose subscribers may fall `limit` commits behind.
    init(limit: Int = 10_000) {
        self.limit = limit
    }

    /// A new subscription to `database`'s commits from the next one on. Call it under the store's lock
    /// together with reading the initial state, so no commit falls between the two.
    func subscribe(_ database: DatabaseName) -> Subscription {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream<Entry>.makeStream(bufferingPolicy: .bufferingOldest(limit))
        continuation.onTermination = { [weak self] _ in self?.drop(id, from: database) }
        subscribers.withLock { $0[database, default: [:]][id] = continuation }
        return Subscription(id: id, entries: stream, feed: self)
    }

    /// Hands `entry` to every subscriber of `database`; one whose buffer is full is cut off.
    func publish(_ entry: Entry, to database: DatabaseName) {
        let targets = subscribers.withLock { $0[database] ?? [:] }
        for (id, continuation) in targets {
            if case .dropped = continuation.yield(entry) {
                endings.withLock { $0[id] = .overflow }
                continuation.finish()
            }
        }
    }

    /// How subscription `id` ended (`nil` while it runs).
    func ending(of id: Int) -> Ending? { endings.withLock { $0[id] } }

    private func drop(_ id: Int, from database: DatabaseName) {
        subscribers.withLock { $0[database]?[id] = nil }
        endings.withLock { if $0[id] == nil { $0[id] = .finished } }
    }

    /// One subscriber's commits.
    struct Subscription: Sendable {
        /// The subscription's id.
        let id: Int
        /// The commits, in order; finishes on overflow or when cancelled.
        let entries: AsyncStream<Entry>
        let feed: CommitFeed

        /// Why the entries finished: `overflow` if the subscriber fell behind.
        var ending: Ending? { feed.ending(of: id) }
    }
}
