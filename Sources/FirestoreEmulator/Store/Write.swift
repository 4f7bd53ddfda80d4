import EmulatorCore

/// One write of a commit, batch write or write stream: set, patch, delete or verify a document, with an
/// optional precondition and field transforms. Transport-agnostic; REST and gRPC decode into it.
struct Write: Sendable {
    /// What the write does.
    enum Operation: Sendable {
        /// Sets the document's fields (all of them, or only the masked paths when `updateMask` is set).
        case update(fields: [String: FirestoreValue])
        /// Deletes the document.
        case delete
        /// Only checks the precondition (transactions of the mobile and web SDKs).
        case verify
        /// Only applies `transforms` (the legacy `transform` operation).
        case transform
    }

    /// The document written.
    var path: DocumentPath
    /// What to do with it.
    var operation: Operation
    /// For `update`: the field paths to change; a masked path absent from `fields` is deleted. `nil` replaces
    /// the whole document.
    var updateMask: [FieldPath]?
    /// Transforms applied after the update, in order.
    var transforms: [FieldTransform] = []
    /// What must hold for the write to apply.
    var precondition: Precondition?
}

/// A condition on the current document (`current_document`).
enum Precondition: Sendable, Equatable {
    /// The document must (`true`) or must not (`false`) exist.
    case exists(Bool)
    /// The document must exist with exactly this update time.
    case updateTime(Timestamp)
}

/// A server-side change of one field (`FieldTransform`).
struct FieldTransform: Sendable {
    /// The transformation.
    enum Kind: Sendable {
        /// `set_to_server_value: REQUEST_TIME`: the commit time.
        case serverTimestamp
        /// Adds a number; integer + integer stays integer (saturating), anything with a double is a double.
        case increment(FirestoreValue)
        /// The larger of the current value and this number.
        case maximum(FirestoreValue)
        /// The smaller of the current value and this number.
        case minimum(FirestoreValue)
        /// Appends the elements not already present (`arrayUnion`).
        case appendMissingElements([FirestoreValue])
        /// Removes every occurrence of these elements (`arrayRemove`).
        case removeAllFromArray([FirestoreValue])
    }

    /// The field changed.
    var field: FieldPath
    /// How.
    var kind: Kind
}

/// The outcome of one applied write (`WriteResult`).
struct WriteResult: Sendable, Equatable {
    /// The document's update time after the write; `nil` for deletes and verifies.
    var updateTime: Timestamp?
    /// One value per transform: the field's new value (`null` for the array transforms).
    var transformResults: [FirestoreValue] = []
}

extension Write {
    /// The path of the document `name` a write names, which must be in `database` (both transports' check).
    static func documentPath(_ name: String, in database: DatabaseName) throws(FirestoreError) -> DocumentPath {
        if let path = plainDocumentPath(name, in: database) { return path }
        let (named, path) = try DocumentPath.parse(documentName: name)
        guard named == database else {
            throw FirestoreError(
                .invalidArgument,
                "The request was for database '\(database)' but was attempting to access database '\(named)'")
        }
        return path
    }
}

extension Write {
    /// The path of `name` when it is plainly a document of `database` (see `DocumentPath.plain`); `nil` for
    /// anything else, which `DocumentPath.parse` reads (and refuses with its words).
    static func plainDocumentPath(_ name: String, in database: DatabaseName) -> DocumentPath? {
        var name = name
        return name.withUTF8 { bytes -> DocumentPath? in
            guard let path = DocumentPath.plain(resourceName: bytes, in: database), path.isDocument else { return nil }
            return path
        }
    }
}
