import FirestoreWire
import Foundation
import SwiftProtobuf

extension FirestoreClient {
    /// How many times a transaction is attempted before its `aborted` error is thrown, as the SDKs do.
    static let transactionAttempts = 5

    /// Runs `body` in a transaction and commits its writes (`BeginTransaction`, reads inside it, `Commit`).
    /// When the commit is `aborted` because a document read changed meanwhile, `body` runs again in a new
    /// transaction, up to 5 attempts in all. If `body` throws, the transaction is rolled back and the error
    /// rethrown. Returns what the committed attempt's `body` returned.
    public func runTransaction<Result: Sendable>(_ body: @Sendable (Transaction) async throws -> Result)
        async throws -> Result
    {
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
            let result: Result
            do {
                result = try await body(transaction)
            } catch {
                await rollback(id)
                throw error
            }
            do {
                try await commit(transaction.writes, transaction: id)
            } catch {
                guard error.code == .aborted, attempt < Self.transactionAttempts else { throw error }
                attempt += 1
                retrying = id
                continue
            }
            return result
        }
    }

    /// Ends transaction `id` without committing; a failure is ignored (the transaction expires anyway).
    private func rollback(_ id: Data) async {
        var request = Google_Firestore_V1_RollbackRequest()
        request.database = database
        request.transaction = id
        _ = try? await call { [metadata] in try await $0.rollback(request, metadata: metadata, options: Self.options()) }
    }
}
