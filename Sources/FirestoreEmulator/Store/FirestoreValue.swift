/// A Firestore field value (`google.firestore.v1.Value`), transport-agnostic: REST JSON and gRPC both map
/// to it at their edges.
package enum FirestoreValue: Sendable {
    case null
    case boolean(Bool)
    case integer(Int64)
    case double(Double)
    /// Seconds and nanoseconds since the epoch (the backend keeps microseconds).
    case timestamp(seconds: Int64, nanos: Int32)
    case string(String)
    case bytes([UInt8])
    /// A document name: `projects/{p}/databases/{d}/documents/...`.
    case reference(String)
    case geoPoint(latitude: Double, longitude: Double)
    case array([FirestoreValue])
    case map([String: FirestoreValue])
}

extension FirestoreValue {
    /// Firestore's cross-type order (`TypeOrder`): null < boolean < number < timestamp < string < bytes <
    /// reference < geopoint < array < vector < map.
    var typeOrder: Int {
        switch self {
        case .null: return 0
        case .boolean: return 1
        case .integer, .double: return 2
        case .timestamp: return 3
        case .string: return 5
        case .bytes: return 6
        case .reference: return 7
        case .geoPoint: return 8
        case .array: return 9
        case .map(let fields): return Self.isVector(fields) ? 10 : 11
        }
    }

    /// A vector value: `{__type__: "__vector__", value: [doubles]}`.
    static func isVector(_ fields: [String: FirestoreValue]) -> Bool {
        if case .string("__vector__")? = fields["__type__"] { return true }
        return false
    }

    /// Whether the value is a number that is NaN.
    var isNaN: Bool {
        if case .double(let value) = self { return value.isNaN }
        return false
    }

    /// The numeric value of an integer or double.
    var number: Double? {
        switch self {
        case .integer(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }
}

extension FirestoreValue: Equatable {
    /// Value equality as queries use it: numbers by value across integer/double (NaN never equal here),
    /// containers structurally, maps regardless of key order.
    package static func == (lhs: FirestoreValue, rhs: FirestoreValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.boolean(let a), .boolean(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b
        case (.integer(let a), .double(let b)), (.double(let b), .integer(let a)):
            return Self.compare(integer: a, double: b) == 0 && !b.isNaN
        case (.timestamp(let s1, let n1), .timestamp(let s2, let n2)): return s1 == s2 && n1 == n2
        case (.string(let a), .string(let b)): return a == b
        case (.bytes(let a), .bytes(let b)): return a == b
        case (.reference(let a), .reference(let b)): return a == b
        case (.geoPoint(let la, let lo), .geoPoint(let lb, let lob)): return la == lb && lo == lob
        case (.array(let a), .array(let b)): return a == b
        case (.map(let a), .map(let b)): return a == b
        default: return false
        }
    }

    /// Compares an integer with a double exactly (no precision loss for large integers); NaN sorts first.
    static func compare(integer: Int64, double: Double) -> Int {
        if double.isNaN { return 1 }
        if double >= 9.223372036854775807e18 { return -1 }
        if double < -9.223372036854775808e18 { return 1 }
        let truncated = Int64(double)
        if integer < truncated { return -1 }
        if integer > truncated { return 1 }
        let fraction = double - Double(truncated)
        return fraction > 0 ? -1 : (fraction < 0 ? 1 : 0)
    }
}

/// The emulator's value under a name other modules can spell next to their own `FirestoreValue` (the
/// module's name is also its entry type's, so `FirestoreEmulator.FirestoreValue` does not resolve).
package typealias StoredFirestoreValue = FirestoreValue
