import FirestoreEmulator

/// Firestore's order of values, for sorting a listener's results as the server sorts query results: the
/// emulator's own comparison (by type, then by value: integers and doubles compared exactly, NaN first,
/// strings by UTF-8 bytes, references segment by segment, vectors by length first, maps key by key).
extension FirestoreValue {
    /// The emulator's value type.
    private typealias Stored = StoredFirestoreValue

    /// -1, 0 or 1 as `first` sorts before, with or after `second`.
    static func compare(_ first: FirestoreValue, _ second: FirestoreValue) -> Int {
        Stored.compare(first.stored, second.stored)
    }

    /// -1, 0 or 1 in document name order (segment by segment, numeric ids first).
    static func comparePaths(_ first: String, _ second: String) -> Int {
        Stored.compareReferences(first, second)
    }

    /// The value as the emulator keeps it. References stay relative to the documents root, which orders
    /// them alike; the write-only sentinels, never read, are null.
    private var stored: Stored {
        switch self {
        case .null: .null
        case .bool(let value): .boolean(value)
        case .integer(let value): .integer(value)
        case .double(let value): .double(value)
        case .timestamp(let value): .timestamp(seconds: value.seconds, nanos: value.nanoseconds)
        case .string(let value): .string(value)
        case .bytes(let value): .bytes(Array(value))
        case .reference(let path): .reference(path)
        case .geoPoint(let latitude, let longitude): .geoPoint(latitude: latitude, longitude: longitude)
        case .array(let elements): .array(elements.map(\.stored))
        case .map(let fields): .map(fields.mapValues(\.stored))
        case .serverTimestamp, .delete, .increment, .arrayUnion, .arrayRemove: .null
        }
    }
}
