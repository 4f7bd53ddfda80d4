/// A stored document: its path below the database's documents root, its fields and its times.
struct Document: Sendable, Equatable {
    /// Where the document lives, e.g. `rooms/a/messages/m1`.
    var path: DocumentPath
    /// The top-level fields.
    var fields: [String: FirestoreValue]
    /// When the document was created (kept across updates; a delete and re-create starts anew).
    var createTime: Timestamp
    /// When the document last changed: the commit time of the last write that touched it.
    var updateTime: Timestamp

    /// The document's id (its last path segment).
    var id: String { path.lastSegment ?? "" }

    /// The value at `field` (`__name__` is the document's reference), or `nil` if absent.
    func value(at field: FieldPath, in database: DatabaseName) -> FirestoreValue? {
        if field == .documentName { return .reference(path.name(in: database)) }
        return FirestoreValue.value(at: field, in: fields)
    }
}
