import FirestoreWire
import GRPCCore

/// Cloud Firestore's gRPC API (`google.firestore.v1.Firestore`), served from the same operations, store and
/// rules as the REST API: each RPC runs the REST operation its request transcodes to (`ProtoBridge`), so
/// both transports give the same results, and gRPC statuses carry REST's error messages.
///
/// `Listen` is in `FirestoreService+Listen.swift`; the other RPCs are in `FirestoreService+Documents.swift`,
/// `+Batch.swift`, `+Queries.swift` and `+Write.swift`.
struct FirestoreService: Google_Firestore_V1_Firestore.ServiceProtocol {
    /// The REST API whose operations every RPC runs.
    let api: FirestoreAPI
    /// The store's commits, in order, for listeners.
    let feed: CommitFeed

    /// The service over `api`'s store and rules; listeners follow `feed`.
    init(api: FirestoreAPI, feed: CommitFeed) {
        self.api = api
        self.feed = feed
    }
}
