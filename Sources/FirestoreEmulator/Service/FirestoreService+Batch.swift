import EmulatorCore

/// The operations on a database's documents root: BatchGetDocuments, BeginTransaction, Commit, Rollback,
/// BatchWrite.
extension FirestoreService {
    /// The most writes one commit or batch write takes (production's limit).
    static let maximumWrites = 500

    /// BatchGetDocuments: each path's document or its absence, in request order, at one read time.
    func batchGet(_ request: BatchGetRequest, _ context: CallContext) throws(FirestoreError) -> BatchGetResult {
        let (documents, stamp) = try store.read(request.database, consistency: request.consistency) {
            (view: inout DatabaseView) throws(FirestoreError) -> [Document?] in
            for path in request.paths {
                try rules.authorizeGet(path, credential: context.credential, view: view, time: context.now)
            }
            return request.paths.map { view.document(at: $0) }
        }
        return BatchGetResult(
            documents: zip(request.paths, documents).map { ($0, $1?.masked(by: request.mask)) },
            readTime: stamp.readTime, transaction: stamp.transaction)
    }

    /// BeginTransaction: the new transaction's id.
    func beginTransaction(_ database: DatabaseName, mode: TransactionMode) throws(FirestoreError) -> [UInt8] {
        try store.beginTransaction(database, mode: mode)
    }

    /// Commit: every write or none, at one commit time; ABORTED when a transaction's reads changed, or when an
    /// older transaction still running read a document it writes (see `mustWait`).
    func commit(_ request: CommitRequest, _ context: CallContext) throws(FirestoreError) -> FirestoreStore.CommitOutcome {
        try Self.checkWriteCount(request.writes.count)
        return try commit(request.database, request.writes, transaction: request.transaction, context)
    }

    /// How long a transaction's commit waits for older transactions (the official emulator's lock timeout).
    static let lockTimeout: Duration = .seconds(2)

    /// Whether `request` is a transaction's commit that has to wait for an older transaction still running,
    /// which read a document it writes: the younger waits for the older to end, as production's locks make
    /// it, rather than failing at once and retrying in a loop that the older, if slow, always wins.
    func mustWait(_ request: CommitRequest) -> Bool {
        guard let transaction = request.transaction else { return false }
        return store.mustWait(request.database, transaction: transaction, writing: request.writes.map(\.path))
    }

    /// Commit, first waiting while `mustWait` holds, up to `lockTimeout`: then the transaction ends with
    /// ABORTED "Transaction lock timeout.", as in the official emulator.
    func commitWaiting(_ request: CommitRequest, _ context: CallContext) async throws(FirestoreError)
        -> FirestoreStore.CommitOutcome
    {
        try Self.checkWriteCount(request.writes.count)
        guard let transaction = request.transaction else {
            return try commit(request.database, request.writes, transaction: nil, context)
        }
        let deadline = ContinuousClock.now + Self.lockTimeout
        while mustWait(request) {
            guard ContinuousClock.now < deadline else {
                try? store.rollback(request.database, transaction: transaction)
                throw FirestoreError(.aborted, "Transaction lock timeout.")
            }
            // Polled: contention is rare, and the older transaction's end is seen within a millisecond.
            do {
                try await Task.sleep(for: .milliseconds(1))
            } catch {
                throw FirestoreError(.cancelled, "The operation was cancelled.")
            }
        }
        return try commit(request.database, request.writes, transaction: transaction, context)
    }

    /// Rollback.
    func rollback(_ database: DatabaseName, transaction: [UInt8]) throws(FirestoreError) {
        try store.rollback(database, transaction: transaction)
    }

    /// BatchWrite: each write on its own, in order, each with its result or its error. A document may be
    /// written once. Only administrators (server SDKs) may call it: the official emulator refuses any other
    /// caller whatever the rules say (firebase-tools#3833), as production refuses end-user credentials.
    func batchWrite(_ request: BatchWriteRequest, _ context: CallContext) throws(FirestoreError)
        -> [Result<WriteResult, FirestoreError>]
    {
        guard context.credential == .owner else {
            throw FirestoreError(.permissionDenied, "Batch writes require admin authentication.")
        }
        try Self.checkWriteCount(request.writes.count)
        var written = Set<DocumentPath>()
        for write in request.writes where !written.insert(write.path).inserted {
            throw FirestoreError(
                .invalidArgument,
                "A batch write cannot write to the same document more than once: \(write.path.name(in: request.database))")
        }
        return request.writes.map { write in
            do throws(FirestoreError) {
                let outcome = try commit(request.database, [write], transaction: nil, context)
                var result = outcome.results[0]
                if result.updateTime == nil, case .delete = write.operation { result.updateTime = outcome.commitTime }
                return .success(result)
            } catch {
                return .failure(error)
            }
        }
    }

    /// Commits `writes` with the caller's rules decided against the pending commit.
    func commit(_ database: DatabaseName, _ writes: [Write], transaction: [UInt8]?, _ context: CallContext)
        throws(FirestoreError) -> FirestoreStore.CommitOutcome
    {
        try store.commit(database, writes: writes, transaction: transaction) {
            (pending: [FirestoreStore.PendingWrite], view: DatabaseView, commitTime: Timestamp) throws(FirestoreError) in
            try rules.authorizeWrites(pending, credential: context.credential, view: view, time: commitTime)
        }
    }

    /// Refuses more writes than production takes in one request (transports check before decoding them).
    static func checkWriteCount(_ count: Int) throws(FirestoreError) {
        guard count <= maximumWrites else {
            throw FirestoreError(.invalidArgument, "maximum \(maximumWrites) writes allowed per request")
        }
    }
}
