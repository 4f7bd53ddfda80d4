import EmulatorCore

/// Why a Firestore operation failed: a canonical status and production's message. Everything below the
/// transports throws it; each transport maps it once, at its edge: REST to Google's JSON error envelope
/// (`APIError`), gRPC to a status (`RPCError`), a listen target's refusal to its `TargetChange.cause`.
struct FirestoreError: Error, Sendable, Equatable {
    /// The canonical status (`NOT_FOUND`, `ABORTED`...).
    var status: GoogleStatus
    /// The message, as production words it.
    var message: String

    /// An error of `status` saying `message`.
    init(_ status: GoogleStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    /// The gRPC status code of the error's status.
    var grpcCode: Int { status.grpcCode }

    /// The error as REST renders it: `{"error":{"code","message","status"}}`, with no `errors` array.
    var apiError: APIError { APIError(message: message, status: status, reason: nil) }

    /// `PERMISSION_DENIED` for a request the security rules deny.
    static let permissionDenied = FirestoreError(.permissionDenied, "Missing or insufficient permissions.")

    /// A rules denial: production's message, then on the next line why, in the official emulator's words
    /// (`false for 'get' @ L5`), so a developer sees which rule said no.
    static func permissionDenied(because detail: String) -> FirestoreError {
        detail.isEmpty ? permissionDenied : FirestoreError(.permissionDenied, permissionDenied.message + "\n" + detail)
    }

    /// `INVALID_ARGUMENT` for a parent that is neither the documents root nor a document.
    static func invalidParent(_ name: String) -> FirestoreError {
        FirestoreError(.invalidArgument, "Invalid parent \"\(name)\": a query parent is the documents root or a document.")
    }
}

extension FirestoreError {
    /// `UNIMPLEMENTED` for query explanations (`explain_options`): they are production's query planner's.
    static let explainUnsupported = FirestoreError(.unimplemented, "Query explain is not supported by the Firestore emulator.")

    /// `RESOURCE_EXHAUSTED` ending a listen stream that fell `CommitFeed.limit` commits behind the writes.
    static let listenerBehind = FirestoreError(.resourceExhausted, "The listener fell too far behind the writes; reconnect to resume.")

    /// A name in another database than the request's.
    static func otherDatabase(_ name: String, _ database: DatabaseName) -> FirestoreError {
        FirestoreError(.invalidArgument, "Document \"\(name)\" is not in the database \"\(database)\" of this request.")
    }
}
