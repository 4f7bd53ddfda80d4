import EmulatorCore
import FirestoreWire
import Foundation
import GRPCCore
import SwiftProtobuf

/// BatchGetDocuments, BeginTransaction, Commit, Rollback and BatchWrite: the request's `database` names the
/// database.
extension FirestoreGRPCService {
    /// BatchGetDocuments: one response per document, after one carrying a transaction begun with
    /// `new_transaction`.
    func batchGetDocuments(_ message: Google_Firestore_V1_BatchGetDocumentsRequest, _ caller: CallContext)
        throws(FirestoreError) -> [Google_Firestore_V1_BatchGetDocumentsResponse]
    {
        let database = try DatabaseName(validating: message.database)
        var paths: [DocumentPath] = []
        paths.reserveCapacity(message.documents.count)
        for name in message.documents {
            let (named, path) = try DocumentPath.parse(documentName: name)
            guard named == database else { throw FirestoreError.otherDatabase(name, database) }
            paths.append(path)
        }
        let consistency = FirestoreStore.Consistency(message.consistencySelector)
        let result = try service.batchGet(
            BatchGetRequest(
                database: database, paths: paths, mask: message.hasMask ? try message.mask.paths : nil,
                consistency: consistency),
            caller)
        let readTime = result.readTime.proto
        var responses = result.documents.map { path, document in
            var response = Google_Firestore_V1_BatchGetDocumentsResponse()
            if let document {
                response.found = document.proto(in: database)
            } else {
                response.missing = path.name(in: database)
            }
            response.readTime = readTime
            return response
        }
        if let transaction = result.transaction {
            responses.insert(.with { $0.transaction = Data(transaction) }, at: 0)
        }
        return responses
    }

    /// `batchGetDocuments` through grpc-swift.
    func batchGetDocuments(request: ServerRequest<Google_Firestore_V1_BatchGetDocumentsRequest>, context: ServerContext)
        async throws -> StreamingServerResponse<Google_Firestore_V1_BatchGetDocumentsResponse>
    {
        try serverStreaming(request, batchGetDocuments(_:_:))
    }

    /// BeginTransaction.
    func beginTransaction(_ message: Google_Firestore_V1_BeginTransactionRequest, _ caller: CallContext)
        throws(FirestoreError) -> Google_Firestore_V1_BeginTransactionResponse
    {
        let database = try DatabaseName(validating: message.database)
        let mode = message.hasOptions ? TransactionMode(proto: message.options) : .readWrite()
        let id = try service.beginTransaction(database, mode: mode)
        return .with { $0.transaction = Data(id) }
    }

    /// `beginTransaction` through grpc-swift.
    func beginTransaction(request: ServerRequest<Google_Firestore_V1_BeginTransactionRequest>, context: ServerContext)
        async throws -> ServerResponse<Google_Firestore_V1_BeginTransactionResponse>
    {
        try unary(request, beginTransaction(_:_:))
    }

    /// The service's request for a Commit message.
    static func commitRequest(_ message: Google_Firestore_V1_CommitRequest) throws(FirestoreError) -> CommitRequest {
        let database = try DatabaseName(validating: message.database)
        return CommitRequest(
            database: database, writes: try Write.writes(proto: message.writes, database: database),
            transaction: message.transaction.isEmpty ? nil : Array(message.transaction))
    }

    /// `commit` through grpc-swift: every write or none, at one commit time, after waiting for older
    /// transactions as `FirestoreService.commitWaiting` does.
    func commit(request: ServerRequest<Google_Firestore_V1_CommitRequest>, context: ServerContext)
        async throws -> ServerResponse<Google_Firestore_V1_CommitResponse>
    {
        do {
            let commit = try Self.commitRequest(request.message)
            return ServerResponse(message: try await service.commitWaiting(commit, self.context(request.metadata)).proto)
        } catch {
            throw RPCError(error)
        }
    }

    /// Rollback.
    func rollback(_ message: Google_Firestore_V1_RollbackRequest, _ caller: CallContext)
        throws(FirestoreError) -> Google_Protobuf_Empty
    {
        let database = try DatabaseName(validating: message.database)
        guard !message.transaction.isEmpty else {
            throw FirestoreError(.invalidArgument, "transaction is required.")
        }
        try service.rollback(database, transaction: Array(message.transaction))
        return Google_Protobuf_Empty()
    }

    /// `rollback` through grpc-swift.
    func rollback(request: ServerRequest<Google_Firestore_V1_RollbackRequest>, context: ServerContext)
        async throws -> ServerResponse<Google_Protobuf_Empty>
    {
        try unary(request, rollback(_:_:))
    }

    /// BatchWrite: each write on its own, with a status per write.
    func batchWrite(_ message: Google_Firestore_V1_BatchWriteRequest, _ caller: CallContext)
        throws(FirestoreError) -> Google_Firestore_V1_BatchWriteResponse
    {
        let database = try DatabaseName(validating: message.database)
        let writes = try Write.writes(proto: message.writes, database: database)
        let outcomes = try service.batchWrite(
            BatchWriteRequest(database: database, writes: writes), caller)
        var response = Google_Firestore_V1_BatchWriteResponse()
        for outcome in outcomes {
            switch outcome {
            case .success(let result):
                response.writeResults.append(result.proto)
                response.status.append(Google_Rpc_Status())
            case .failure(let error):
                response.writeResults.append(Google_Firestore_V1_WriteResult())
                response.status.append(.with {
                    $0.code = Int32(error.grpcCode)
                    $0.message = error.message
                })
            }
        }
        return response
    }

    /// `batchWrite` through grpc-swift.
    func batchWrite(request: ServerRequest<Google_Firestore_V1_BatchWriteRequest>, context: ServerContext)
        async throws -> ServerResponse<Google_Firestore_V1_BatchWriteResponse>
    {
        try unary(request, batchWrite(_:_:))
    }
}
