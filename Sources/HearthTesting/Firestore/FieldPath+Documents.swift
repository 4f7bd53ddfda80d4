import FirestoreEmulator

/// The Firestore emulator's field path (its segments, `documentName`, the server's quoted form as
/// `description`, its order as `<`), as the client writes and reads it.
extension FieldPath {
    /// A dot-separated path as users write it (`address.city`).
    init(dotted: String) {
        self.init(segments: dotted.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
    }

    /// The path with `name` appended.
    func appending(_ name: String) -> FieldPath { FieldPath(segments: segments + [name]) }

    /// The value at this path in `fields`, if there is one.
    func value(in fields: [String: FirestoreValue]) -> FirestoreValue? {
        var value: FirestoreValue = .map(fields)
        for segment in segments {
            guard case .map(let map) = value, let next = map[segment] else { return nil }
            value = next
        }
        return value
    }
}
