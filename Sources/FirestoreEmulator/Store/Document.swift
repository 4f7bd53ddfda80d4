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
        var kept: [String: FirestoreValue] = [:]
        for path in paths where path != .documentName {
            guard let value = FirestoreValue.value(at: path, in: fields) else { continue }
            FirestoreValue.set(value, at: path.segments[...], in: &kept)
        }
        var result = self
        result.fields = kept
        return result
    }
}

extension FirestoreValue {
    /// Sets (or, for `nil`, removes) the value at `segments` below `fields`, creating intermediate maps and
    /// replacing intermediate non-maps; removing below a missing or non-map intermediate changes nothing.
    static func set(_ value: FirestoreValue?, at segments: ArraySlice<String>, in fields: inout [String: FirestoreValue]) {
        guard let key = segments.first else { return }
        guard segments.count > 1 else {
            fields[key] = value
            return
        }
        // Take the child out so that it is uniquely referenced while it changes.
        var child: [String: FirestoreValue]
        switch fields.removeValue(forKey: key) {
        case .map(let existing)?:
            child = existing
        case let other:
            guard value != nil else {
                fields[key] = other
                return
            }
            child = [:]
        }
        set(value, at: segments.dropFirst(), in: &child)
        fields[key] = .map(child)
    }
}
