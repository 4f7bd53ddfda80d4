import EmulatorCore
import Foundation
import Synchronization

/// The Firestore emulator's documents for every project and database, with transactions; the one store the
/// service (`FirestoreService`) runs on, whatever the transport. Synchronous: every operation runs under one
/// lock, so commits are atomic and reads consistent; nothing waits while holding it.
final class FirestoreStore: Sendable {
    /// How far back reads at a `read_time` may look (production's version retention without PITR).
    static let retention: TimeInterval = 3600
    /// How long a transaction lives after `BeginTransaction` (production's limit).
    static let transactionLifetime: TimeInterval = 270
    /// How long a transaction lives without a read or a commit (production's idle expiration).
    static let transactionIdleLifetime: TimeInterval = 60
    /// How many ended transactions' places in line are kept at least, for their retries.
    static let retiredKept = 4096

    private struct State {
        var databases: [DatabaseName: DatabaseState] = [:]
        var transactions: [[UInt8]: TransactionRecord] = [:]
        /// The places in line of recently ended transactions, for their retries: the newest ones, and the
        /// generation before them (so the last `retiredKept` ended are always there).
        var retired: [[UInt8]: Date] = [:]
        var retiredBefore: [[UInt8]: Date] = [:]
        var lastTime = Timestamp(seconds: 0, nanos: 0)
        /// What changed, for restoring checkpoints.
        var log = ChangeLog()
    }

    private let state: Mutex<State>
    private let clock: any EmulatorClock
    /// Every commit, in order, for listeners.
    let feed: CommitFeed
    /// Where every change is written before it is acknowledged (`--data-dir`), if anywhere.
    private let durable: (any DurableStore)?
    /// The fewest documents a collection holds for a query to build a field index there.
    private let indexThreshold: Int

    /// A store reading time from `clock`, publishing its commits to `feed`: empty, or holding what `durable`
    /// kept, every change of which it then writes there.
    init(
        clock: any EmulatorClock, feed: CommitFeed = CommitFeed(), durable: (any DurableStore)? = nil,
        indexThreshold: Int = DatabaseView.defaultIndexThreshold
    ) throws(DurableStoreError) {
        self.indexThreshold = indexThreshold
        self.clock = clock
        self.feed = feed
        self.durable = durable
        var initial = State()
        if let durable {
            (initial.databases, initial.lastTime) = try DurableDocuments.load(from: durable)
        }
        state = Mutex(initial)
    }

    // MARK: Reads

    /// Where a read looks (`consistency_selector`).
    enum Consistency: Sendable {
        /// The latest state.
        case latest
        /// The state at a past time.
        case readTime(Timestamp)
        /// Inside an existing transaction.
        case transaction([UInt8])
        /// Begins a transaction and reads inside it.
        case newTransaction(TransactionMode)
    }

    /// What a read returns besides its result: the time it reflects and a transaction it began.
    struct ReadStamp: Sendable {
        /// The time the read saw the database at.
        var readTime: Timestamp
        /// The id of the transaction begun by `.newTransaction`.
        var transaction: [UInt8]?
    }

    /// Runs `body` against a consistent view of `database` as `consistency` selects; documents and queries
    /// read through the view are recorded in the transaction, if any.
    func read<Result: Sendable>(
        _ database: DatabaseName, consistency: Consistency = .latest,
        _ body: (inout DatabaseView) throws(FirestoreError) -> Result
    ) throws(FirestoreError) -> (Result, ReadStamp) {
        try state.withLock { (state: inout State) throws(FirestoreError) -> (Result, ReadStamp) in
            let now = Self.advance(&state, to: clock.now(), strictly: false)
            var transactionID: [UInt8]?
            var newTransaction: [UInt8]?
            var readTime: Timestamp?
            switch consistency {
            case .latest: break
            case .readTime(let time): readTime = try Self.checkReadTime(time, now: now)
            case .transaction(let id):
                let record = try Self.transaction(id, in: &state, database: database, now: clock.now())
                transactionID = id
                readTime = record.readTime
                state.transactions[id]?.lastUsed = clock.now()
            case .newTransaction(let mode):
                let id = try Self.begin(mode, database: database, in: &state, now: now, date: clock.now())
                transactionID = id
                newTransaction = id
                readTime = state.transactions[id]?.readTime
            }
            let records = transactionID.map { state.transactions[$0]?.readOnly == false } ?? false
            var view = DatabaseView(
                state: Self.database(database, in: &state), readTime: readTime, records: records, indexThreshold: indexThreshold)
            let result = try body(&view)
            if records, let transactionID {
                for (path, time) in view.reads { state.transactions[transactionID]?.reads[path] = time }
                state.transactions[transactionID]?.queries.append(contentsOf: view.queries)
            }
            return (result, ReadStamp(readTime: readTime ?? now, transaction: newTransaction))
        }
    }

    // MARK: Indexes

    /// The fewest documents a collection holds for `prepareIndexes` to build an index outside the lock
    /// (smaller ones take milliseconds under it).
    static let offLockIndexMinimum = 10_000

    /// Builds the indexes `query` will read in `database` (with `fields`, those of its sums and averages:
    /// see `IndexPlan.totaling(_:of:)`) that its collection lacks, outside the store's lock, so that other
    /// calls go on meanwhile (a million documents take a second or more to sort): a copy of the collection
    /// is taken under the lock (copy-on-write, O(1)), the index built from it without the lock, then
    /// installed under it, brought up to date with whatever was written in between (see
    /// `DatabaseState.install`). Collection-group queries and collections under `offLockIndexMinimum`
    /// documents build theirs when the query runs.
    func prepareIndexes(for query: StructuredQuery, totaling fields: [FieldPath] = [], in database: DatabaseName) {
        guard !query.allDescendants, query.findNearest == nil else { return }
        var plans = IndexPlan.disjunctions(of: query) ?? IndexPlan(query).map { [$0] } ?? []
        if let totaling = IndexPlan.totaling(fields, of: query) { plans.append(totaling.plan) }
        let collectionPath = query.parent.appending(query.collectionID)
        for key in Set(plans.map(\.key)) {
            let snapshot = state.withLock { state -> CollectionState? in
                guard let collection = state.databases[database]?.collection(at: collectionPath), collection.fieldIndexes[key] == nil,
                    collection.existingCount >= max(Self.offLockIndexMinimum, indexThreshold)
                else { return nil }
                return collection
            }
            guard let snapshot else { continue }
            let index = snapshot.buildIndex(key)
            state.withLock { state in
                state.databases[database]?.install(index, key: key, in: collectionPath, builtFrom: snapshot)
            }
        }
    }

    // MARK: Transactions

    /// Begins a transaction in `database`; returns its id.
    func beginTransaction(_ database: DatabaseName, mode: TransactionMode) throws(FirestoreError) -> [UInt8] {
        try state.withLock { (state: inout State) throws(FirestoreError) -> [UInt8] in
            let now = Self.advance(&state, to: clock.now(), strictly: false)
            return try Self.begin(mode, database: database, in: &state, now: now, date: clock.now())
        }
    }

    /// Whether a commit of `transaction` writing `paths` must wait before it can succeed: an older read-write
    /// transaction still running read one of those documents (see `olderReaderRuns`). False for a transaction
    /// that does not exist (the commit refuses it).
    func mustWait(_ database: DatabaseName, transaction id: [UInt8], writing paths: [DocumentPath]) -> Bool {
        state.withLock { state in
            let now = clock.now()
            guard let record = state.transactions[id], record.database == database, record.isLive(at: now) else {
                return false
            }
            return Self.olderReaderRuns(record, writing: paths, among: state.transactions, now: now)
        }
    }

    /// Ends a transaction without committing.
    func rollback(_ database: DatabaseName, transaction id: [UInt8]) throws(FirestoreError) {
        try state.withLock { (state: inout State) throws(FirestoreError) in
            let record = try Self.transaction(id, in: &state, database: database, now: clock.now())
            Self.retire(id, record, in: &state)
        }
    }

    // MARK: Commits

    /// One write as the authorizer sees it: the document before and after.
    struct PendingWrite: Sendable {
        /// The write.
        var write: Write
        /// The document before this write (after the commit's earlier writes).
        var before: Document?
        /// The document after this write.
        var after: Document?
    }

    /// What a commit did.
    struct CommitOutcome: Sendable {
        /// The time every write of the commit took effect.
        var commitTime: Timestamp
        /// One result per write.
        var results: [WriteResult]
        /// The documents written, with their states after the commit.
        var written: PendingDocuments
        /// The documents changed, with their states before and after the commit.
        var changes: [(path: DocumentPath, before: Document?, after: Document?)]
    }

    /// Applies `writes` to `database` atomically, in order, at one commit time: all or nothing. `authorize`
    /// sees every write with its before and after states and the database as it would be after the commit
    /// (for rules' `getAfter`); throwing from it refuses the commit. With `transaction`, the commit fails
    /// with `ABORTED` if anything the transaction read changed since, and the transaction ends.
    func commit(
        _ database: DatabaseName, writes: [Write], transaction: [UInt8]? = nil,
        authorize: (_ writes: [PendingWrite], _ view: DatabaseView, _ commitTime: Timestamp) throws(FirestoreError) -> Void
    ) throws(FirestoreError) -> CommitOutcome {
        feed.waitForRoom()
        return try state.withLock { (state: inout State) throws(FirestoreError) -> CommitOutcome in
            let date = clock.now()
            let databaseState = Self.database(database, in: &state)
            if let transaction {
                let record = try Self.transaction(transaction, in: &state, database: database, now: date)
                Self.retire(transaction, record, in: &state)
                if record.readOnly {
                    guard writes.isEmpty else {
                        throw FirestoreError(.invalidArgument, "Cannot modify entities in a read-only transaction.")
                    }
                } else {
                    try Self.validate(record, against: databaseState)
                    if Self.olderReaderRuns(record, writing: writes.map(\.path), among: state.transactions, now: date) {
                        throw Self.contention
                    }
                }
            }
            let commitTime = Self.advance(&state, to: date, strictly: true)
            var written = PendingDocuments(capacity: writes.count)
            var pending: [PendingWrite] = []
            pending.reserveCapacity(writes.count)
            var results: [WriteResult] = []
            results.reserveCapacity(writes.count)
            for write in writes {
                let position = written.position(of: write.path)
                    ?? written.add(write.path, stored: databaseState.document(at: write.path))
                let before = written.after[position]
                let (after, result) = try write.apply(to: before, commitTime: commitTime, database: database)
                written.set(after, at: position)
                pending.append(PendingWrite(write: write, before: before, after: after))
                results.append(result)
            }
            try authorize(pending, DatabaseView(state: databaseState, readTime: nil, overlay: written), commitTime)
            let horizon = Timestamp(date.addingTimeInterval(-Self.retention))
            var changes: [(path: DocumentPath, before: Document?, after: Document?)] = []
            changes.reserveCapacity(written.count)
            for position in 0..<written.count {
                let (before, after) = (written.before[position], written.after[position])
                // A write that changed nothing (see `Write.apply`) keeps the document and its update time.
                if before?.updateTime == after?.updateTime { continue }
                changes.append((written.paths[position], before, after))
            }
            if !changes.isEmpty {
                try persist(changes.lazy.map { DurableDocuments.change($0.path, $0.after, in: database) })
            }
            for change in changes {
                databaseState.record(change.after, at: change.path, time: commitTime, horizon: horizon)
                state.log.record(change.path, in: database)
            }
            if !changes.isEmpty {
                // Under the lock, so listeners see commits in commit order; the fan-out happens after it.
                feed.publish(CommitFeed.Entry(commitTime: commitTime, changes: changes), to: database)
            }
            return CommitOutcome(commitTime: commitTime, results: results, written: written, changes: changes)
        }
    }

    // MARK: Emulator operations

    /// Deletes every document of `database` (the emulator's clear endpoint).
    func clear(_ database: DatabaseName) throws(FirestoreError) {
        try state.withLock { (state: inout State) throws(FirestoreError) in
            try persist(CollectionOfOne(.deleteSpace(DurableDocuments.space(of: database))))
            state.databases[database]?.removeAll()
            state.log.forget()
            state.transactions = state.transactions.filter { $0.value.database != database }
        }
    }

    /// The collections of every database of `project` as they are now, for an export: taken in one step under
    /// the lock (copy-on-write, so O(databases)), read afterwards without it while commits go on.
    func snapshot(project: String) -> [(name: DatabaseName, collections: [DocumentPath: CollectionState])] {
        state.withLock { state in
            state.databases.filter { $0.key.project == project && $0.value.documentCount > 0 }
                .map { ($0.key, $0.value.collections) }
                .sorted { $0.name.database < $1.name.database }
        }
    }

    /// Replaces every document of each database in `databases` with the ones given (an import), all created
    /// and updated at one new commit time; other databases stay as they are. Listeners get the documents that
    /// change (every one the database held or now holds) as that commit; open transactions on those databases
    /// end.
    func replace(_ databases: [DatabaseName: [(path: DocumentPath, fields: [String: FirestoreValue])]]) throws(FirestoreError) {
        feed.waitForRoom()
        try state.withLock { (state: inout State) throws(FirestoreError) in
            let time = Self.advance(&state, to: clock.now(), strictly: true)
            func document(_ entry: (path: DocumentPath, fields: [String: FirestoreValue])) -> Document {
                Document(path: entry.path, fields: entry.fields, createTime: time, updateTime: time)
            }
            // Each database's space emptied, then its documents: written as they are encoded, not all at once.
            try persist(databases.lazy.flatMap { name, documents in
                (-1..<documents.count).lazy.map { index in
                    index < 0 ? .deleteSpace(DurableDocuments.space(of: name))
                        : DurableDocuments.change(documents[index].path, document(documents[index]), in: name)
                }
            })
            for (name, documents) in databases {
                let database = DatabaseState(name: name)
                for entry in documents {
                    database.record(document(entry), at: entry.path, time: time, horizon: time)
                }
                let previous = state.databases[name]
                state.databases[name] = database
                state.transactions = state.transactions.filter { $0.value.database != name }
                // Only described for listeners there are: an import at start-up has none.
                if let previous, feed.hasSubscribers(name) {
                    let changes = previous.differences(to: database)
                    if !changes.isEmpty { feed.publish(CommitFeed.Entry(commitTime: time, changes: changes), to: name) }
                }
            }
            state.log.forget()
        }
    }

    /// Every database of every project as it is now, for a checkpoint: O(databases), whatever they hold.
    func checkpoint() -> Checkpoint {
        state.withLock { Checkpoint(databases: $0.databases.mapValues { $0.copy() }, position: $0.log.mark()) }
    }

    /// The databases of a checkpoint, which a restore rebases: the same documents, with the times the restore
    /// wrote them at, so that restoring again when nothing changed finds nothing to do.
    /// `@unchecked Sendable`: the states are read and replaced only under the store's lock, and never changed
    /// in place.
    final class Checkpoint: @unchecked Sendable {
        fileprivate var databases: [DatabaseName: DatabaseState]
        /// Where in the change log the state was last the checkpoint's.
        fileprivate var position: Int

        init(databases: [DatabaseName: DatabaseState], position: Int) {
            self.databases = databases
            self.position = position
        }
    }

    /// Brings back `checkpoint` as one commit per database that differs: the documents it changes are
    /// written at the restore's commit time (so clients' caches, which keep the newest version they saw,
    /// take them) and listeners get them as that commit; open transactions on those databases end.
    func restore(_ checkpoint: Checkpoint) throws(FirestoreError) {
        feed.waitForRoom()
        try state.withLock { (state: inout State) throws(FirestoreError) in
            let time = Self.advance(&state, to: clock.now(), strictly: true)
            var restored: [(name: DatabaseName, target: DatabaseState, changes: [(path: DocumentPath, before: Document?, after: Document?)])] = []
            for name in Set(state.databases.keys).union(checkpoint.databases.keys) {
                let current = state.databases[name] ?? DatabaseState(name: name)
                let target = checkpoint.databases[name]?.copy() ?? DatabaseState(name: name)
                let changed = state.log.paths(since: checkpoint.position, in: name)
                let differences = changed.map { current.differences(to: target, at: $0) } ?? current.differences(to: target)
                guard !differences.isEmpty else { continue }
                restored.append((name, target, differences.map { difference in
                    var after = difference.after
                    after?.updateTime = time
                    return (difference.path, difference.before, after)
                }))
            }
            if !restored.isEmpty {
                try persist(restored.lazy.flatMap { database in
                    database.changes.lazy.map { DurableDocuments.change($0.path, $0.after, in: database.name) }
                })
            }
            for (name, target, changes) in restored {
                for change in changes {
                    target.record(change.after, at: change.path, time: time, horizon: time)
                    state.log.record(change.path, in: name)
                }
                checkpoint.databases[name] = target.copy()
                state.databases[name] = target
                state.transactions = state.transactions.filter { $0.value.database != name }
                feed.publish(CommitFeed.Entry(commitTime: time, changes: changes), to: name)
            }
            checkpoint.position = state.log.mark()
        }
    }

    /// Writes `changes` to the data folder, if there is one, before the state they describe is kept in memory:
    /// a change the folder refused is refused to the client too, and nothing of it stays.
    private func persist(_ changes: some Sequence<DurableChange>) throws(FirestoreError) {
        guard let durable else { return }
        do {
            try durable.write(changes)
        } catch {
            throw FirestoreError(.unavailable, "The change could not be stored: \(error.message)")
        }
    }

    /// The number of documents in `database` now.
    func documentCount(_ database: DatabaseName) -> Int {
        state.withLock { $0.databases[database]?.documentCount ?? 0 }
    }

    // MARK: Helpers (under the lock)

    private static func database(_ name: DatabaseName, in state: inout State) -> DatabaseState {
        if let existing = state.databases[name] { return existing }
        let created = DatabaseState(name: name)
        state.databases[name] = created
        return created
    }

    /// The next time at µs precision, never earlier than any time handed out; `strictly` (commits) makes it
    /// later than every earlier commit and read, so a read at time T has seen every commit at or before T.
    private static func advance(_ state: inout State, to date: Date, strictly: Bool) -> Timestamp {
        var time = Timestamp(date)
        if strictly, time <= state.lastTime {
            time = Timestamp(microseconds: state.lastTime.microseconds + 1)
        } else if time < state.lastTime {
            time = state.lastTime
        }
        state.lastTime = time
        return time
    }

    // MARK: Listening

    /// Subscribes to `database`'s commits with `subscribe` and runs `body` on the state at that same moment,
    /// so the subscription carries exactly the commits after what `body` saw.
    func listen<Result: Sendable, Subscription: Sendable>(
        _ database: DatabaseName, subscribe: (CommitFeed) -> Subscription,
        _ body: (inout DatabaseView) throws(FirestoreError) -> Result
    ) throws(FirestoreError) -> (Result, Subscription, readTime: Timestamp) {
        try state.withLock { (state: inout State) throws(FirestoreError) -> (Result, Subscription, readTime: Timestamp) in
            let now = Self.advance(&state, to: clock.now(), strictly: false)
            var view = DatabaseView(state: Self.database(database, in: &state), readTime: nil, indexThreshold: indexThreshold)
            let result = try body(&view)
            return (result, subscribe(feed), now)
        }
    }

    private static func checkReadTime(_ time: Timestamp, now: Timestamp) throws(FirestoreError) -> Timestamp {
        guard time <= now else {
            throw FirestoreError(.invalidArgument, "read_time cannot be in the future.")
        }
        guard time.microseconds >= now.microseconds - Int64(retention * 1_000_000) else {
            throw FirestoreError(.failedPrecondition, "read_time is older than the oldest version still kept (one hour).")
        }
        return time
    }

    private static func begin(
        _ mode: TransactionMode, database: DatabaseName, in state: inout State, now: Timestamp, date: Date
    ) throws(FirestoreError) -> [UInt8] {
        var readOnly = false
        var readTime: Timestamp?
        var priority = date
        switch mode {
        case .readOnly(let time):
            readOnly = true
            readTime = try time.map { (time) throws(FirestoreError) in try checkReadTime(time, now: now) } ?? now
        case .readWrite(let retrying?):
            priority = state.retired[retrying] ?? state.retiredBefore[retrying] ?? state.transactions[retrying]?.priority
                ?? date
        case .readWrite(nil):
            break
        }
        state.transactions = state.transactions.filter { $0.value.isLive(at: date) }
        var id: [UInt8]
        repeat {
            id = (0..<16).map { _ in UInt8.random(in: 0...255) }
        } while state.transactions[id] != nil
        state.transactions[id] = TransactionRecord(
            database: database, readOnly: readOnly, readTime: readTime, began: date, lastUsed: date, priority: priority)
        return id
    }

    private static func transaction(
        _ id: [UInt8], in state: inout State, database: DatabaseName, now: Date
    ) throws(FirestoreError) -> TransactionRecord {
        guard let record = state.transactions[id], record.database == database, record.isLive(at: now) else {
            state.transactions[id] = nil
            throw FirestoreError(.invalidArgument, "The referenced transaction has expired or is no longer valid.")
        }
        return record
    }

    /// Ends a transaction, remembering its place in line for a retry.
    private static func retire(_ id: [UInt8], _ record: TransactionRecord, in state: inout State) {
        state.transactions[id] = nil
        if state.retired.count >= retiredKept {
            state.retiredBefore = state.retired
            state.retired.removeAll(keepingCapacity: true)
        }
        state.retired[id] = record.priority
    }

    /// Whether an older read-write transaction still running has read one of `paths`, which `record` would
    /// write. Production's locks make the younger transaction's commit wait for the older one (wound-wait:
    /// the older never waits for the younger), so a transaction retried with its place in line always gets
    /// through; callers wait while this holds (`mustWait`), and `commit` refuses with `ABORTED` if it still does.
    private static func olderReaderRuns(
        _ record: TransactionRecord, writing paths: [DocumentPath], among transactions: [[UInt8]: TransactionRecord],
        now: Date
    ) -> Bool {
        transactions.values.contains { other in
            !other.readOnly && other.database == record.database && other.priority < record.priority
                && other.isLive(at: now) && paths.contains { other.reads.keys.contains($0) }
        }
    }

    /// `ABORTED`, as production answers a transaction that lost a conflict.
    private static let contention = FirestoreError(
        .aborted,
        "Aborted due to cross-transaction contention. This occurs when multiple transactions attempt to access "
            + "the same data, requiring Firestore to abort at least one in order to enforce serializability.")

    /// Refuses a transaction's commit if a document or query result it read has changed since.
    private static func validate(_ record: TransactionRecord, against database: DatabaseState) throws(FirestoreError) {
        for (path, seen) in record.reads where database.document(at: path)?.updateTime != seen {
            throw contention
        }
        for (query, seen) in record.queries {
            var view = DatabaseView(state: database, readTime: nil)
            let now = view.run(query)
            guard now.count == seen.count, now.allSatisfy({ seen[$0.path] == $0.updateTime }) else { throw contention }
        }
    }
}
