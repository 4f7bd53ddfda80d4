import EmulatorCore

/// One client message of a write stream, decoded by its transport.
struct WriteStreamRequest: Sendable {
    /// The request's `database` resource name.
    var database: String
    /// The `stream_id` (empty on the handshake).
    var streamID: String
    /// The `stream_token`: the last token the stream sent (empty on the handshake).
    var token: [UInt8]
    /// Whether the request carries writes.
    var hasWrites: Bool
    /// The request's writes, decoded once the stream's database is known (every document must be in it).
    var writes: @Sendable (DatabaseName) throws(FirestoreError) -> [Write]
}

/// The answer to one write stream request: the handshake's stream id, or a commit's outcome, with the next
/// token.
struct WriteStreamResponse: Sendable {
    /// The stream's id (the handshake's answer only).
    var streamID: String?
    /// The token the client sends back with its next request.
    var token: [UInt8]
    /// The commit of the request's writes (none for the handshake).
    var outcome: FirestoreStore.CommitOutcome?
}

/// The write stream of the mobile and web SDKs, whatever its transport: a handshake, then one atomic commit
/// per request. `WriteStream` keeps the protocol.
extension FirestoreService {
    /// Serves one write stream: answers each of `requests` through `send`, each commit made for the caller
    /// `authorization` (an `Authorization` header's value). Returns when the client ends its requests;
    /// throws the `FirestoreError` that ends the stream otherwise: a failing commit (the SDKs reconnect and
    /// redo the handshake) or a request out of protocol (INVALID_ARGUMENT).
    func serveWrite(
        _ requests: some AsyncSequence<WriteStreamRequest, any Error>, authorization: String?,
        send: (WriteStreamResponse) async throws -> Void
    ) async throws {
        var stream = WriteStream(id: RandomID.make(length: 20))
        for try await request in requests {
            try await send(try respond(to: request, in: &stream, authorization: authorization))
        }
    }

    /// The response to one request of `stream`, after committing its writes.
    func respond(to request: WriteStreamRequest, in stream: inout WriteStream, authorization: String?)
        throws(FirestoreError) -> WriteStreamResponse
    {
        switch try stream.receive(
            database: request.database, streamID: request.streamID, token: request.token, hasWrites: request.hasWrites)
        {
        case .handshake(let streamID, let token):
            return WriteStreamResponse(streamID: streamID, token: token)
        case .commit(let database, let token):
            let writes = try request.writes(database)
            let outcome = try commit(
                CommitRequest(database: database, writes: writes, transaction: nil), context(authorization: authorization))
            return WriteStreamResponse(token: token, outcome: outcome)
        }
    }
}
