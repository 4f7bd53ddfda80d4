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

extension Document {
    /// The document with only the fields at `paths` (a mask or projection); `nil` keeps everything.
    func masked(by paths: [FieldPath]?) -> Document {
        guard let paths else { return self }
        var kept: FirestoreValue = .map([:])
        for path in paths where path != .documentName {
            guard let value = FirestoreValue.value(at: path, in: fields) else { continue }
            kept = kept.inserting(value, at: path.segments[...])
        }
        var result = self
        if case .map(let fields) = kept { result.fields = fields }
        return result
    }
}

extension FirestoreValue {
    /// This map with `value` at `path`, creating intermediate maps (a non-map on the way is replaced).
    func inserting(_ value: FirestoreValue, at path: ArraySlice<String>) -> FirestoreValue {
        guard let first = path.first else { return value }
        var fields: [String: FirestoreValue] = [:]
        if case .map(let existing) = self { fields = existing }
        fields[first] = (fields[first] ?? .map([:])).inserting(value, at: path.dropFirst())
        return .map(fields)
    }
}
