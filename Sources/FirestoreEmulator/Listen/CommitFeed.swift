import Dispatch
import Synchronization

/// Every commit, in commit order, for the listeners of each database. Publishing queues the commit for the
/// subscribers of that moment, and a serial delivery queue hands it to each of them, so a commit never holds
/// the store's lock for its fan-out, and publishing never waits. Writers faster than the fan-out are held
/// back before they take the store's lock instead (`waitForRoom`) while `backlog` commits are queued. Each
/// subscriber has its own bounded buffer, and one that falls `limit` commits behind has its stream finished
/// (its transport then closes the listen stream with an error the SDKs retry), hurting no one else.
final class CommitFeed: Sendable {
    /// One commit as listeners see it.
    struct Entry: Sendable {
        /// The commit's time.
        var commitTime: Timestamp
        /// Each changed document with its states before and after.
        var changes: [(path: DocumentPath, before: Document?, after: Document?)]
        /// The changed paths hashed, in order, once for every listener; set when the feed hands the commit out.
        var keys: [HashedPath]?

        /// The commit at `commitTime` of `changes`.
        init(commitTime: Timestamp, changes: [(path: DocumentPath, before: Document?, after: Document?)]) {
            self.commitTime = commitTime
            self.changes = changes
        }
    }

    private let subscribers = Mutex<[DatabaseName: [Int: @Sendable (Entry) -> Bool]]>([:])
    /// The subscriptions cut off for falling behind, until someone asks.
    private let overflowed = Mutex<Set<Int>>([])
    private let nextID = Atomic<Int>(0)
    /// Hands out published commits one after another, in the order they were published.
    private let delivery = DispatchQueue(label: "hearth.firestore.commit-feed")
    /// Room in the delivery queue: a writer waits (outside the store's lock) while `backlog` commits are
    /// queued, so writers faster than the fan-out are held back rather than queueing without bound.
    private let room: DispatchSemaphore
    /// Published commits not yet handed out to every subscriber.
    private let undelivered = Atomic<Int>(0)

    /// The most commits a subscriber may have waiting.
    let limit: Int

    /// A feed whose subscribers may fall `limit` commits behind, and that queues up to `backlog` commits
    /// for handing out before a publisher waits.
    init(limit: Int = 10_000, backlog: Int = 1_024) {
        self.limit = limit
        room = DispatchSemaphore(value: backlog)
    }

    /// A new subscription to `database`'s commits from the next one on, as a stream. Call it under the
    /// store's lock together with reading the initial state, so no commit falls between the two.
    func subscribe(_ database: DatabaseName) -> Subscription {
        let (stream, continuation) = AsyncStream<Entry>.makeStream(bufferingPolicy: .bufferingOldest(limit))
        let id = subscribe(database, into: continuation) { $0 }
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(id, from: database) }
        return Subscription(id: id, entries: stream, feed: self)
    }

    /// A new subscription that yields each commit, wrapped by `wrap`, straight into the subscriber's own
    /// stream (no hop in between); that stream's buffering bounds it, and a commit it drops cuts the
    /// subscriber off (its stream is finished and its ending is `overflow`). Returns the subscription id.
    func subscribe<Input: Sendable>(
        _ database: DatabaseName, into continuation: AsyncStream<Input>.Continuation,
        _ wrap: @escaping @Sendable (Entry) -> Input
    ) -> Int {
        subscribe(database) { entry in
            guard case .dropped = continuation.yield(wrap(entry)) else { return true }
            return false
        } cutOff: { [weak self] id in
            // Recorded before the stream finishes, so its reader sees why it ended.
            self?.overflowed.withLock { _ = $0.insert(id) }
            continuation.finish()
        }
    }

    /// A new subscription handing each commit to `sink` on the feed's delivery queue, in publish order;
    /// `sink` must return at once (it hands the commit on). When it returns false (it cannot take the
    /// commit) the subscription ends and `cutOff` gets its id. Returns the subscription id.
    func subscribe(
        _ database: DatabaseName, sink: @escaping @Sendable (Entry) -> Bool,
        cutOff: @escaping @Sendable (Int) -> Void = { _ in }
    ) -> Int {
        let id = nextID.add(1, ordering: .relaxed).newValue
        subscribers.withLock {
            $0[database, default: [:]][id] = { entry in
                if sink(entry) { return true }
                cutOff(id)
                return false
            }
        }
        return id
    }

    /// Returns once fewer than `backlog` commits wait to be handed out. Writers call it before taking the
    /// store's lock, so a fan-out slower than the writes holds the writers back, never the lock.
    func waitForRoom() {
        room.wait()
        room.signal()
    }

    /// Hands `entry` to every subscriber `database` has now; one that cannot take it is cut off. Call it
    /// under the store's lock, as `subscribe`: commits reach each subscriber in the order they were
    /// published, and only those published after it subscribed. Returns at once, before the entry is
    /// handed out: it never waits (writers wait for room before they take the lock, `waitForRoom`).
    func publish(_ entry: Entry, to database: DatabaseName) {
        let targets = subscribers.withLock { $0[database] ?? [:] }
        guard !targets.isEmpty else { return }
        // Takes a place in the backlog if there is one; past it (writers that passed `waitForRoom` at the
        // same moment) the entry is queued all the same.
        let placed = room.wait(timeout: .now()) == .success
        undelivered.add(1, ordering: .sequentiallyConsistent)
        delivery.async {
            var entry = entry
            entry.keys = entry.changes.map { HashedPath($0.path) }
            for (id, deliver) in targets where !deliver(entry) {
                self.subscribers.withLock { _ = $0[database]?.removeValue(forKey: id) }
            }
            self.undelivered.subtract(1, ordering: .sequentiallyConsistent)
            if placed { self.room.signal() }
        }
    }

    /// Whether `database` has a subscriber now (a commit nobody follows need not be described).
    func hasSubscribers(_ database: DatabaseName) -> Bool {
        subscribers.withLock { !($0[database]?.isEmpty ?? true) }
    }

    /// Runs `action` once every commit published before the call has been handed out to its subscribers:
    /// at once, in the caller's thread, when none is waiting to be handed out (a target added while no
    /// commit is on its way gets its snapshot without a thread hop), else on the delivery queue after them.
    func afterPublished(_ action: @escaping @Sendable () -> Void) {
        if undelivered.load(ordering: .sequentiallyConsistent) == 0 {
            action()
        } else {
            delivery.async(execute: action)
        }
    }

    /// Ends subscription `id`.
    func unsubscribe(_ id: Int, from database: DatabaseName) {
        subscribers.withLock { $0[database]?[id] = nil }
    }

    /// Whether subscription `id` was cut off for falling behind (answered once: the record is dropped).
    func takeOverflow(of id: Int) -> Bool {
        overflowed.withLock { $0.remove(id) != nil }
    }

    /// One subscriber's commits.
    struct Subscription: Sendable {
        /// The subscription's id.
        let id: Int
        /// The commits, in order; finishes when the subscriber falls behind.
        let entries: AsyncStream<Entry>
        let feed: CommitFeed

        /// Whether the entries finished because the subscriber fell behind (answered once).
        func takeOverflow() -> Bool { feed.takeOverflow(of: id) }
    }
}

