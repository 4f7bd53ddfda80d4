import EmulatorCore

/// The Write stream's protocol (`google.firestore.v1.Firestore/Write`, as the mobile SDKs drive it) as a
/// state machine without I/O: the service hands it each request and performs the action it returns.
///
/// The first request is the handshake: `database` only, answered with the stream's id and a first token.
/// Every later request carries a token the stream sent and a batch of writes (possibly empty) to commit
/// atomically, answered with a new token. The token acknowledges the responses up to it: the SDKs send the
/// newest they have received, and pipeline writes without waiting for answers, so several requests may
/// carry the same token (the official emulator takes any token; the proto says that once a token is sent,
/// earlier ones may not be used). A request out of protocol is INVALID_ARGUMENT, which ends the stream.
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
    /// The newest token the client has sent back.
    private var acknowledged: UInt64 = 0

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
        guard token.count == 8, case let number = token.reduce(UInt64(0), { $0 << 8 | UInt64($1) }),
            number >= 1, number <= tokensSent
        else {
            throw FirestoreError(.invalidArgument, "The stream token was not sent by this write stream.")
        }
        guard number >= acknowledged else {
            throw FirestoreError(.invalidArgument, "The stream token is older than one this write stream's client has sent.")
        }
        acknowledged = number
        return .commit(database, token: nextToken())
    }

    private mutating func nextToken() -> [UInt8] {
        tokensSent += 1
        return withUnsafeBytes(of: tokensSent.bigEndian) { Array($0) }
    }
}
