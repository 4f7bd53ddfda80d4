import FirestoreWire
import Foundation
import SwiftProtobuf

extension FirestoreClient {
    /// How many times a transaction is attempted before its `aborted` error is thrown, as the SDKs do.
    static let transactionAttempts = 5

    /// Runs `body` in a transaction and commits its writes (`BeginTransaction`, reads inside it, `Commit`).
    /// When the commit is `aborted` because a document read changed meanwhile, or `body` throws a
    /// `ClientError` with code `aborted`, `body` runs again in a new transaction after a backoff, up to 5
    /// attempts in all.
    /// If `body` throws, the transaction is rolled back, and any other error rethrown. Returns what the
    /// committed attempt's `body` returned. `body` runs on the caller's actor, one attempt after another.
    public func runTransaction<Result>(
        isolation: isolated (any Actor)? = #isolation, _ body: (Transaction) async throws -> Result
    ) async throws -> Result {
        var attempt = 1
        var retrying: Data?
        while true {
            var begin = Google_Firestore_V1_BeginTransactionRequest()
            begin.database = database
            // A retry names the aborted transaction, so it keeps its place in line.
            begin.options.readWrite = .with { if let retrying { $0.retryTransaction = retrying } }
            let id = try await call { [metadata] in
                try await $0.beginTransaction(begin, metadata: metadata, options: Self.options()).transaction
            }
            let transaction = Transaction(client: self, id: id)
            let failure: any Error
            do {
                let result = try await body(transaction)
                do {
                    try await commit(transaction.writes, transaction: id)
                    return result
                } catch {
                    // A failed commit ends the transaction: there is nothing to roll back.
                    failure = error
                }
            } catch {
                await rollback(id)
                failure = error
            }
            guard (failure as? ClientError)?.code == .aborted, attempt < Self.transactionAttempts else { throw failure }
            // Back off before trying again, as the SDKs do: an older transaction that read the same documents
            // may still be on its way to committing, and an immediate retry would lose to it again.
            try await Task.sleep(for: Self.backoff(after: attempt))
            attempt += 1
            retrying = id
        }
    }

    /// How long to wait after failed attempt `attempt` (1-based), as the web and iOS SDKs back off a
    /// transaction (`ExponentialBackoff`: none before the first retry, then 1 s growing 1.5 times per attempt,
    /// each with up to half of it more or less at random, so competing clients spread out). A loaded machine
    /// can hold an older transaction for longer than a fast schedule would wait.
    static func backoff(after attempt: Int) -> Duration {
        guard attempt > 1 else { return .zero }
        let base = 1000 * pow(1.5, Double(attempt - 2))
        return .milliseconds(Int(base + Double.random(in: -0.5...0.5) * base))
    }

    /// Ends transaction `id` without committing; a failure is ignored (the transaction expires anyway).
    private func rollback(_ id: Data) async {
        var request = Google_Firestore_V1_RollbackRequest()
        request.database = database
        request.transaction = id
        _ = try? await call { [metadata] in try await $0.rollback(request, metadata: metadata, options: Self.options()) }
    }
}
