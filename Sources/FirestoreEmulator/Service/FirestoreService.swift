import EmulatorCore

/// The Cloud Firestore service (`google.firestore.v1.Firestore`), whatever the transport: each operation
/// takes a typed request (`Requests.swift`), decides the caller's rules, runs against the store and answers
/// a typed result, or throws a `FirestoreError`. REST (`REST/`), gRPC (`GRPC/`) and the web SDK's WebChannel
/// (`WebChannel/`) are adapters that translate their wire forms to these requests and back; snapshot
/// listeners and the write stream are in `Listen/`.
///
/// The operations are in `FirestoreService+Documents.swift`, `+Batch.swift` and `+Queries.swift`.
struct FirestoreService: Sendable {
    /// The documents of every database.
    let store: FirestoreStore
    /// The security rules of every project.
    let rules: FirestoreRules
    /// Where request and commit times come from.
    let clock: any EmulatorClock
    /// The indexes queries are checked against before they run.
    var indexes = FirestoreIndexes()

    /// The store's commits, in order, for listeners.
    var feed: CommitFeed { store.feed }

    /// The context of a request that arrives now with the `Authorization` header or `authorization`
    /// metadata `authorization` (`Bearer owner`, `Bearer <ID token>`, none), read the same way for every
    /// transport.
    func context(authorization: String?) -> CallContext {
        CallContext(credential: Credential(authorizationHeader: authorization), now: Timestamp(clock.now()))
    }
}

/// Who calls and when: what every operation needs from the transport a request came by.
struct CallContext: Sendable {
    /// Who the request speaks for (`Bearer owner` bypasses rules).
    var credential: Credential
    /// When the request arrived (`request.time` for reads).
    var now: Timestamp
}
