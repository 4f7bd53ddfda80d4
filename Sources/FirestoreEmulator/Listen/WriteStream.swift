import EmulatorCore

/// The Write stream's protocol (`google.firestore.v1.Firestore/Write`, as the mobile SDKs drive it) as a
/// state machine without I/O: the service hands it each request and performs the action it returns.
///
/// The first request is the handshake: `database` only, answered with the stream's id and a first token.
/// Every later request carries the last token sent and a batch of writes (possibly empty) to commit
/// atomically, answered with a new token. A request out of protocol is INVALID_ARGUMENT, which ends the
/// stream.
struct WriteStream {
    /// What to do with a request.
    enum Action: Equatable {
        /// Answer the handshake with the stream's id and its first token, and no results.
        case handshake(streamID: String, token: [UInt8])
        /// Commit the request's writes in `database` as one batch; answer with `token`, the commit time and
        /// one result per write.
        case commit(DatabaseName, token: [UInt8])
    }

    /// The stream's id.
    let id: String
    /// The stream's database, once the handshake named it.
    private(set) var database: DatabaseName?
    /// How many tokens were sent; each token is its count, big-endian.
    private var tokensSent: UInt64 = 0

    /// A stream whose handshake has not come yet.
    init(id: String) {
        self.id = id
    }

    /// The action for the next request, given its `database`, `stream_id` and `stream_token` fields and
    /// whether it has writes.
    mutating func receive(database name: String, streamID: String, token: [UInt8], hasWrites: Bool) throws(FirestoreError)
        -> Action
    {
        guard let database else {
            guard streamID.isEmpty, token.isEmpty else {
                throw FirestoreError(
                    .invalidArgument,
                    "Write streams cannot be resumed: start a new stream with a handshake that names only the database.")
            }
            guard !hasWrites else {
                throw FirestoreError(.invalidArgument, "The first request of a write stream (the handshake) cannot have writes.")
            }
            self.database = try DatabaseName(validating: name)
            return .handshake(streamID: id, token: nextToken())
        }
        guard name.isEmpty || name == database.description else {
            throw FirestoreError(
                .invalidArgument, "The database \"\(name)\" is not the database \"\(database)\" of this write stream.")
        }
        guard streamID.isEmpty || streamID == id else {
            throw FirestoreError(.invalidArgument, "The stream id \"\(streamID)\" is not the id of this write stream.")
        }
        guard token == lastToken else {
            throw FirestoreError(.invalidArgument, "The stream token is not the last one this write stream sent.")
        }
        return .commit(database, token: nextToken())
    }

    private var lastToken: [UInt8] { withUnsafeBytes(of: tokensSent.bigEndian) { Array($0) } }

    private mutating func nextToken() -> [UInt8] {
        tokensSent += 1
        return lastToken
    }
}
