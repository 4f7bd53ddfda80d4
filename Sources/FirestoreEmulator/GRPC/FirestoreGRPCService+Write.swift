import EmulatorCore
import FirestoreWire
import Foundation
import GRPCCore
import SwiftProtobuf

/// `Write`: the mobile SDKs' write stream over gRPC (and, through `WebChannel/`, the web SDK's). Each request
/// becomes the service's `WriteStreamRequest`, each answer a `WriteResponse`.
extension FirestoreGRPCService {
    /// Write (`google.firestore.v1.Firestore/Write`): a handshake, then one atomic commit per request. The
    /// caller is the stream's `authorization` metadata.
    func write(request: StreamingServerRequest<Google_Firestore_V1_WriteRequest>, context: ServerContext)
        async throws -> StreamingServerResponse<Google_Firestore_V1_WriteResponse>
    {
        let authorization = request.metadata[stringValues: "authorization"].first { _ in true }
        return StreamingServerResponse { writer in
            try await serveWrite(request.messages, authorization: authorization) { try await writer.write($0) }
            return [:]
        }
    }

    /// Serves one write stream of `requests` messages, answering each through `send`. Throws the `RPCError`
    /// that ends the stream.
    func serveWrite(
        _ requests: some AsyncSequence<Google_Firestore_V1_WriteRequest, any Error>, authorization: String?,
        send: (Google_Firestore_V1_WriteResponse) async throws -> Void
    ) async throws {
        do {
            try await service.serveWrite(requests.map(Self.request), authorization: authorization) { answer in
                try await send(Self.response(answer))
            }
        } catch let error as FirestoreError {
            throw RPCError(error)
        }
    }

    /// The wire form of a write stream's answer.
    static func response(_ answer: WriteStreamResponse) -> Google_Firestore_V1_WriteResponse {
        var response = answer.outcome.map { outcome in
            Google_Firestore_V1_WriteResponse.with {
                $0.commitTime = outcome.commitTime.proto
                $0.writeResults = outcome.results.map(\.proto)
            }
        } ?? Google_Firestore_V1_WriteResponse()
        if let streamID = answer.streamID { response.streamID = streamID }
        response.streamToken = Data(answer.token)
        return response
    }

    /// The service's form of a `WriteRequest`.
    @Sendable static func request(_ message: Google_Firestore_V1_WriteRequest) -> WriteStreamRequest {
        WriteStreamRequest(
            database: message.database, streamID: message.streamID, token: Array(message.streamToken),
            hasWrites: !message.writes.isEmpty
        ) { (database) throws(FirestoreError) in
            try Write.writes(proto: message.writes, database: database)
        }
    }
}
