import Foundation

/// What a client asks of a new transaction (`TransactionOptions`).
enum TransactionMode: Sendable, Equatable {
    /// Reads and writes; conflicting commits get `ABORTED` and the SDKs retry, naming the aborted
    /// transaction in `retrying` so the retry keeps its place in line.
    case readWrite(retrying: [UInt8]? = nil)
    /// Reads only, at `readTime` (now when `nil`).
    case readOnly(readTime: Timestamp?)
}

/// A transaction the server keeps between `BeginTransaction` and `Commit`/`Rollback`: what it read, so a
/// commit after someone else changed it can be refused (optimistic concurrency: nobody waits on a lock).
struct TransactionRecord: Sendable {
    /// The database the transaction belongs to.
    var database: DatabaseName
    /// Whether writes are refused.
    var readOnly: Bool
    /// The fixed read time of a read-only transaction.
    var readTime: Timestamp?
    /// When it began (transactions expire `FirestoreStore.transactionLifetime` later).
    var began: Date
    /// When it was last used (it expires when idle for `FirestoreStore.transactionIdleLifetime`).
    var lastUsed: Date
    /// Its place in line: when its first attempt began (a retry inherits it). Older transactions win
    /// conflicts, so a transaction retried often enough always gets through.
    var priority: Date
    /// Each document read, with the update time seen (`nil`: it did not exist).
    var reads: [DocumentPath: Timestamp?] = [:]
    /// Each query run, with the documents and update times it returned.
    var queries: [(query: StructuredQuery, results: [DocumentPath: Timestamp])] = []

    /// Whether it has neither run too long nor been idle too long at `now`.
    func isLive(at now: Date) -> Bool {
        now.timeIntervalSince(began) < FirestoreStore.transactionLifetime
            && now.timeIntervalSince(lastUsed) < FirestoreStore.transactionIdleLifetime
    }
}
