import EmulatorCore
import FirestoreWire
import GRPCCore
import SwiftProtobuf

/// BatchGetDocuments, BeginTransaction, Commit, Rollback and BatchWrite: REST's methods on the documents
/// root (`POST /v1/{database}/documents:<method>`), the request's `database` naming the database.
extension FirestoreService {
    /// BatchGetDocuments: one response per document, after one carrying a transaction begun with
    /// `new_transaction`.
    func batchGetDocuments(
        request: ServerRequest<Google_Firestore_V1_BatchGetDocumentsRequest>, context: ServerContext
    ) async throws -> StreamingServerResponse<Google_Firestore_V1_BatchGetDocumentsResponse> {
        try serverStreaming(request) { call throws(APIError) in
            try api.batchGet(try DatabaseName(validating: request.message.database), call)
        }
    }

    /// BeginTransaction.
    func beginTransaction(
        request: ServerRequest<Google_Firestore_V1_BeginTransactionRequest>, context: ServerContext
    ) async throws -> ServerResponse<Google_Firestore_V1_BeginTransactionResponse> {
        try unary(request) { call throws(APIError) in
            try api.beginTransaction(try DatabaseName(validating: request.message.database), call)
        }
    }

    /// Commit: every write or none, at one commit time; ABORTED when a transaction's reads changed.
    func commit(request: ServerRequest<Google_Firestore_V1_CommitRequest>, context: ServerContext)
        async throws -> ServerResponse<Google_Firestore_V1_CommitResponse>
    {
        try unary(request) { call throws(APIError) in
            try api.commit(try DatabaseName(validating: request.message.database), call)
        }
    }

    /// Rollback.
    func rollback(request: ServerRequest<Google_Firestore_V1_RollbackRequest>, context: ServerContext)
        async throws -> ServerResponse<Google_Protobuf_Empty>
    {
        try unary(request) { call throws(APIError) in
            try api.rollback(try DatabaseName(validating: request.message.database), call)
        }
    }

    /// BatchWrite: each write on its own, with a status per write.
    func batchWrite(request: ServerRequest<Google_Firestore_V1_BatchWriteRequest>, context: ServerContext)
        async throws -> ServerResponse<Google_Firestore_V1_BatchWriteResponse>
    {
        try unary(request) { call throws(APIError) in
            try api.batchWrite(try DatabaseName(validating: request.message.database), call)
        }
    }
}
