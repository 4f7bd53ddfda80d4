import Foundation

/// A value in a Firestore document, as `google.firestore.v1.Value` carries it, plus the write-only
/// sentinels the SDKs offer (`serverTimestamp`, `delete`, `increment`, `arrayUnion`, `arrayRemove`): those
/// are sent as field transforms and field masks, and documents read never contain them.
///
/// Literals build values: `["text": "hi", "count": 1, "tags": ["a"], "meta": ["x": nil]]`.
public enum FirestoreValue: Sendable, Hashable {
    /// `null`.
    case null
    /// A boolean.
    case bool(Bool)
    /// A 64-bit integer.
    case integer(Int64)
    /// A double.
    case double(Double)
    /// A timestamp (microsecond precision on the server).
    case timestamp(Timestamp)
    /// A UTF-8 string.
    case string(String)
    /// Bytes.
    case bytes(Data)
    /// A reference to the document at this path (`users/alice`), in the same database.
    case reference(String)
    /// A latitude and longitude.
    case geoPoint(latitude: Double, longitude: Double)
    /// An array (arrays cannot directly contain arrays).
    case array([FirestoreValue])
    /// A map of field names to values.
    case map([String: FirestoreValue])

    /// Write only: the commit time, set by the server (`FieldValue.serverTimestamp()`).
    case serverTimestamp
    /// Write only: removes the field, in `updateData` and `setData(_:merge: true)` (`FieldValue.delete()`).
    case delete
    /// Write only: adds an integer or double to the field's number, or sets it when the field holds none
    /// (`FieldValue.increment(_:)`).
    indirect case increment(FirestoreValue)
    /// Write only: appends each element the array does not already contain (`FieldValue.arrayUnion(_:)`).
    case arrayUnion([FirestoreValue])
    /// Write only: removes every occurrence of each element (`FieldValue.arrayRemove(_:)`).
    case arrayRemove([FirestoreValue])
}

extension FirestoreValue {
    /// The string, if this is one.
    public var stringValue: String? {
        if case .string(let value) = self { value } else { nil }
    }

    /// The integer, if this is one.
    public var integerValue: Int64? {
        if case .integer(let value) = self { value } else { nil }
    }

    /// The timestamp, if this is one.
    public var timestampValue: Timestamp? {
        if case .timestamp(let value) = self { value } else { nil }
    }

    /// The elements, if this is an array.
    public var arrayValue: [FirestoreValue]? {
        if case .array(let value) = self { value } else { nil }
    }

    /// The fields, if this is a map.
    public var mapValue: [String: FirestoreValue]? {
        if case .map(let value) = self { value } else { nil }
    }
}

extension FirestoreValue: ExpressibleByNilLiteral {
    /// `nil` is `.null`.
    public init(nilLiteral: ()) { self = .null }
}

extension FirestoreValue: ExpressibleByBooleanLiteral {
    /// A boolean literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension FirestoreValue: ExpressibleByIntegerLiteral {
    /// An integer literal.
    public init(integerLiteral value: Int64) { self = .integer(value) }
}

extension FirestoreValue: ExpressibleByFloatLiteral {
    /// A floating-point literal.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension FirestoreValue: ExpressibleByStringLiteral {
    /// A string literal.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension FirestoreValue: ExpressibleByArrayLiteral {
    /// An array literal.
    public init(arrayLiteral elements: FirestoreValue...) { self = .array(elements) }
}

extension FirestoreValue: ExpressibleByDictionaryLiteral {
    /// A map literal; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, FirestoreValue)...) {
        self = .map(Dictionary(elements) { _, last in last })
    }
}
