import FirestoreWire
import Foundation
import SwiftProtobuf

/// Conversion to and from `google.firestore.v1.Value`. References are paths relative to the documents root
/// (`root`, `projects/{p}/databases/{d}/documents`) here and full resource names on the wire.
extension FirestoreValue {
    /// The value read from the wire.
    init(_ proto: Google_Firestore_V1_Value, root: String) {
        switch proto.valueType {
        case .nullValue, nil: self = .null
        case .booleanValue(let value): self = .bool(value)
        case .integerValue(let value): self = .integer(value)
        case .doubleValue(let value): self = .double(value)
        case .timestampValue(let value): self = .timestamp(Timestamp(value))
        case .stringValue(let value): self = .string(value)
        case .bytesValue(let value): self = .bytes(value)
        case .referenceValue(let name):
            self = .reference(name.hasPrefix(root + "/") ? String(name.dropFirst(root.count + 1)) : name)
        case .geoPointValue(let point): self = .geoPoint(latitude: point.latitude, longitude: point.longitude)
        case .arrayValue(let array): self = .array(array.values.map { FirestoreValue($0, root: root) })
        case .mapValue(let map): self = .map(Self.fields(map.fields, root: root))
        }
    }

    /// A document's fields read from the wire.
    static func fields(_ fields: [String: Google_Firestore_V1_Value], root: String) -> [String: FirestoreValue] {
        fields.mapValues { FirestoreValue($0, root: root) }
    }

    /// The value for the wire; a sentinel here (inside an array, or in a query) is an invalid argument.
    func proto(root: String) throws(ClientError) -> Google_Firestore_V1_Value {
        var proto = Google_Firestore_V1_Value()
        switch self {
        case .null: proto.nullValue = .nullValue
        case .bool(let value): proto.booleanValue = value
        case .integer(let value): proto.integerValue = value
        case .double(let value): proto.doubleValue = value
        case .timestamp(let value):
            proto.timestampValue = Google_Protobuf_Timestamp(seconds: value.seconds, nanos: value.nanoseconds)
        case .string(let value): proto.stringValue = value
        case .bytes(let value): proto.bytesValue = value
        case .reference(let path): proto.referenceValue = root + "/" + path
        case .geoPoint(let latitude, let longitude):
            proto.geoPointValue = .with {
                $0.latitude = latitude
                $0.longitude = longitude
            }
        case .array(let elements): proto.arrayValue = try Self.array(elements, root: root)
        case .map(let fields): proto.mapValue.fields = try Self.proto(fields, root: root)
        case .serverTimestamp, .delete, .increment, .arrayUnion, .arrayRemove:
            throw ClientError(
                .invalidArgument,
                message: "\(self) can only be used as a field's value in setData or updateData, "
                    + "not inside an array or a query.")
        }
        return proto
    }

    /// Fields for the wire.
    static func proto(_ fields: [String: FirestoreValue], root: String) throws(ClientError)
        -> [String: Google_Firestore_V1_Value]
    {
        var result: [String: Google_Firestore_V1_Value] = [:]
        for (name, value) in fields { result[name] = try value.proto(root: root) }
        return result
    }

    /// Array elements for the wire.
    static func array(_ elements: [FirestoreValue], root: String) throws(ClientError) -> Google_Firestore_V1_ArrayValue {
        var array = Google_Firestore_V1_ArrayValue()
        for element in elements { array.values.append(try element.proto(root: root)) }
        return array
    }
}
