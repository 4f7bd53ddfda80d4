import FirestoreWire
import Foundation
import SwiftProtobuf

extension FirestoreValue {
    /// The value as a `google.firestore.v1.Value` message, built directly (listeners send many).
    var proto: Google_Firestore_V1_Value {
        var value = Google_Firestore_V1_Value()
        switch self {
        case .null: value.nullValue = .nullValue
        case .boolean(let flag): value.booleanValue = flag
        case .integer(let number): value.integerValue = number
        case .double(let number): value.doubleValue = number
        case .timestamp(let seconds, let nanos): value.timestampValue = .with { $0.seconds = seconds; $0.nanos = nanos }
        case .string(let text): value.stringValue = text
        case .bytes(let bytes): value.bytesValue = Data(bytes)
        case .reference(let name): value.referenceValue = name
        case .geoPoint(let latitude, let longitude):
            value.geoPointValue = .with { $0.latitude = latitude; $0.longitude = longitude }
        case .array(let values): value.arrayValue = .with { $0.values = values.map(\.proto) }
        case .map(let fields): value.mapValue = .with { $0.fields = fields.mapValues(\.proto) }
        }
        return value
    }
}

extension Document {
    /// The document as a `google.firestore.v1.Document` message in `database`.
    func proto(in database: DatabaseName) -> Google_Firestore_V1_Document {
        .with {
            $0.name = path.name(in: database)
            $0.fields = fields.mapValues(\.proto)
            $0.createTime = createTime.proto
            $0.updateTime = updateTime.proto
        }
    }
}

extension Timestamp {
    /// The time as a `google.protobuf.Timestamp`.
    var proto: Google_Protobuf_Timestamp {
        .with { $0.seconds = seconds; $0.nanos = nanos }
    }
}

extension WriteResult {
    /// The result as a `google.firestore.v1.WriteResult` message.
    var proto: Google_Firestore_V1_WriteResult {
        var result = Google_Firestore_V1_WriteResult()
        if let updateTime { result.updateTime = updateTime.proto }
        result.transformResults = transformResults.map(\.proto)
        return result
    }
}

extension FirestoreStore.CommitOutcome {
    /// The outcome as a `CommitResponse` (also the body of a write stream's response).
    var proto: Google_Firestore_V1_CommitResponse {
        var response = Google_Firestore_V1_CommitResponse()
        response.commitTime = commitTime.proto
        response.writeResults = results.map(\.proto)
        return response
    }
}
