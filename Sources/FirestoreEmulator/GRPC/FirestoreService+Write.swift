import EmulatorCore
import FirestoreWire
import Foundation
import GRPCCore

/// Write: the mobile SDKs' write stream. Each batch is a REST commit; `WriteStream` keeps the protocol.
extension FirestoreService {
    /// Write (`google.firestore.v1.Firestore/Write`): a handshake, then one atomic commit per request, each
    /// answered with a new stream token, the commit time and one result per write. A failing batch ends
    /// the stream with the commit's status (the SDKs reconnect and redo the handshake); so does a request
    /// out of protocol, with INVALID_ARGUMENT. The caller is the stream's `authorization` metadata.
    func write(request: StreamingServerRequest<Google_Firestore_V1_WriteRequest>, context: ServerContext)
        async throws -> StreamingServerResponse<Google_Firestore_V1_WriteResponse>
    {
        let authorization = request.metadata[stringValues: "authorization"].first { _ in true }
        return StreamingServerResponse { writer in
            try await serveWrite(request.messages, authorization: authorization) { try await writer.write($0) }
            return [:]
        }
    }

    /// Serves one write stream, whatever its transport: answers each of `requests` through `send`, each
    /// commit made for the caller `authorization` (an `Authorization` header's value). Returns when the
    /// client ends its requests; throws the `RPCError` that ends the stream otherwise.
    func serveWrite(
        _ requests: some AsyncSequence<Google_Firestore_V1_WriteRequest, any Error>, authorization: String?,
        send: (Google_Firestore_V1_WriteResponse) async throws -> Void
    ) async throws {
        var stream = WriteStream(id: RandomID.make(length: 20))
        for try await message in requests {
            try await send(try respond(to: message, in: &stream, authorization: authorization))
        }
    }

    /// The response to one request of `stream`, after committing its writes.
    private func respond(
        to message: Google_Firestore_V1_WriteRequest, in stream: inout WriteStream, authorization: String?
    ) throws(RPCError) -> Google_Firestore_V1_WriteResponse {
        let action: WriteStream.Action
        do {
            action = try stream.receive(
                database: message.database, streamID: message.streamID, token: Array(message.streamToken),
                hasWrites: !message.writes.isEmpty)
        } catch {
            throw RPCError(error)
        }
        var response: Google_Firestore_V1_WriteResponse
        switch action {
        case .handshake(let streamID, let token):
            response = Google_Firestore_V1_WriteResponse()
            response.streamID = streamID
            response.streamToken = Data(token)
        case .commit(let database, let token):
            let writes = try Self.body(of: message)["writes"] ?? []
            let call = RESTCall(context: api.callContext(authorization: authorization), body: ["writes": writes])
            let result: JSONValue
            do {
                result = try api.commit(database, call)
            } catch {
                throw RPCError(error)
            }
            response = try Self.message(result)
            response.streamToken = Data(token)
        }
        return response
    }
}
