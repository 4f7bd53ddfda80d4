import EmulatorCore

/// What every Firestore operation needs from the transport a request came by (REST or gRPC): who calls
/// and when the request arrived.
struct CallContext: Sendable {
    /// Who the request speaks for (`Bearer owner` bypasses rules).
    var credential: Credential
    /// When the request arrived (`request.time` for reads).
    var now: Timestamp
}

extension FirestoreAPI {
    /// The context of a request that arrives now with the `Authorization` header or `authorization`
    /// metadata `authorization` (`Bearer owner`, `Bearer <ID token>`, none), read the same way for every
    /// transport.
    func callContext(authorization: String?) -> CallContext {
        rules.reloadIfChanged()
        return CallContext(credential: Credential(authorizationHeader: authorization), now: Timestamp(clock.now()))
    }
}
