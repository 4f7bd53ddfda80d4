import EmulatorCore
import FirestoreWire
import Foundation
import SwiftProtobuf

/// gRPC request messages to the service's value types, read directly from the messages. Checks and messages
/// are REST's (`REST/*+JSON.swift`) where both can go wrong the same way; a field is named by its proto
/// path, as production names it: `writes[0].update.fields[1].value`.
extension FirestoreValue {
    /// A `google.firestore.v1.Value`; `field` names it in error messages.
    init(proto: Google_Firestore_V1_Value, field: @autoclosure () -> String = "value") throws(FirestoreError) {
        switch proto.valueType {
        case nil:
            throw FirestoreError(.invalidArgument, "Invalid value at '\(field())': a Value must set exactly one of its fields.")
        case .nullValue: self = .null
        case .booleanValue(let flag): self = .boolean(flag)
        case .integerValue(let number): self = .integer(number)
        case .doubleValue(let number): self = .double(number)
        case .timestampValue(let time):
            guard Timestamp.validSeconds.contains(time.seconds), (0..<1_000_000_000).contains(time.nanos) else {
                throw FirestoreError(
                    .invalidArgument,
                    "Invalid value at '\(field()).timestamp_value' (type.googleapis.com/google.protobuf.Timestamp), seconds \(time.seconds) nanos \(time.nanos)")
            }
            // Stored at microseconds, extra digits rounded down, as production stores them.
            self = .timestamp(seconds: time.seconds, nanos: time.nanos - time.nanos % 1000)
        case .stringValue(let text): self = .string(text)
        case .bytesValue(let data): self = .bytes(Array(data))
        case .referenceValue(let name): self = .reference(name)
        case .geoPointValue(let point): self = .geoPoint(latitude: point.latitude, longitude: point.longitude)
        case .arrayValue(let array):
            var values: [FirestoreValue] = []
            values.reserveCapacity(array.values.count)
            for (index, item) in array.values.enumerated() {
                values.append(try FirestoreValue(proto: item, field: "\(field()).array_value.values[\(index)]"))
            }
            self = .array(values)
        case .mapValue(let map): self = .map(try Self.fields(proto: map.fields, field: "\(field()).map_value.fields"))
        }
    }

    /// A `fields` map; an entry is named by its position in name order, as production names it.
    static func fields(proto: [String: Google_Firestore_V1_Value], field: @autoclosure () -> String = "fields")
        throws(FirestoreError) -> [String: FirestoreValue]
    {
        var result: [String: FirestoreValue] = [:]
        result.reserveCapacity(proto.count)
        for (name, value) in proto {
            result[name] = try FirestoreValue(
                proto: value, field: "\(field())[\(proto.keys.sorted().firstIndex(of: name) ?? 0)].value")
        }
        return result
    }
}

extension Write {
    /// A `google.firestore.v1.Write`; every document it names must be in `database`. `field` is where it
    /// sits in the request, e.g. `writes[0]`.
    init(proto: Google_Firestore_V1_Write, database: DatabaseName, field: String) throws(FirestoreError) {
        var transforms: [FieldTransform] = []
        switch proto.operation {
        case .update(let document):
            path = try Self.documentPath(document.name, in: database)
            operation = .update(fields: try FirestoreValue.fields(proto: document.fields, field: "\(field).update.fields"))
        case .delete(let name):
            path = try Self.documentPath(name, in: database)
            operation = .delete
        case .verify(let name):
            path = try Self.documentPath(name, in: database)
            operation = .verify
        case .transform(let transform):
            path = try Self.documentPath(transform.document, in: database)
            operation = .transform
            for (index, item) in transform.fieldTransforms.enumerated() {
                transforms.append(try FieldTransform(proto: item, field: "\(field).transform.field_transforms[\(index)]"))
            }
        case nil:
            throw FirestoreError(
                .invalidArgument, "Invalid value at '\(field)': one of update, delete, verify, transform must be set.")
        }
        self.transforms = transforms
        try readOptions(of: proto, field: field)
    }

    /// Reads what `proto` adds to its operation: the update mask, the update transforms (after the
    /// operation's own) and the precondition.
    /// `field` is spelled out only for a transform's messages.
    mutating func readOptions(of proto: Google_Firestore_V1_Write, field: @autoclosure () -> String) throws(FirestoreError) {
        if proto.hasUpdateMask { updateMask = try proto.updateMask.paths }
        for (index, item) in proto.updateTransforms.enumerated() {
            transforms.append(try FieldTransform(proto: item, field: "\(field()).update_transforms[\(index)]"))
        }
        if proto.hasCurrentDocument { precondition = try Precondition(proto: proto.currentDocument) }
    }

    /// The writes of a commit, a batch write or a write stream request, all in `database`.
    static func writes(proto: [Google_Firestore_V1_Write], database: DatabaseName) throws(FirestoreError) -> [Write] {
        try FirestoreService.checkWriteCount(proto.count)
        var writes: [Write] = []
        writes.reserveCapacity(proto.count)
        for (index, item) in proto.enumerated() {
            writes.append(try Write(proto: item, database: database, field: "writes[\(index)]"))
        }
        return writes
    }
}

extension FieldTransform {
    /// A `DocumentTransform.FieldTransform`.
    init(proto: Google_Firestore_V1_DocumentTransform.FieldTransform, field: String) throws(FirestoreError) {
        self.field = try FieldPath(validating: proto.fieldPath)
        switch proto.transformType {
        case .setToServerValue(let value):
            guard value == .requestTime else {
                throw FirestoreError(
                    .invalidArgument,
                    "Invalid value at '\(field).set_to_server_value' (type.googleapis.com/google.firestore.v1.DocumentTransform.FieldTransform.ServerValue), \(value.rawValue)"
                )
            }
            kind = .serverTimestamp
        case .increment(let value): kind = .increment(try FirestoreValue(proto: value, field: "\(field).increment"))
        case .maximum(let value): kind = .maximum(try FirestoreValue(proto: value, field: "\(field).maximum"))
        case .minimum(let value): kind = .minimum(try FirestoreValue(proto: value, field: "\(field).minimum"))
        case .appendMissingElements(let array):
            kind = .appendMissingElements(try Self.elements(array, field: "\(field).append_missing_elements"))
        case .removeAllFromArray(let array):
            kind = .removeAllFromArray(try Self.elements(array, field: "\(field).remove_all_from_array"))
        case nil:
            throw FirestoreError(
                .invalidArgument,
                "Invalid value at '\(field)': one of setToServerValue, increment, maximum, minimum, appendMissingElements, removeAllFromArray must be set.")
        }
    }

    private static func elements(_ array: Google_Firestore_V1_ArrayValue, field: String) throws(FirestoreError)
        -> [FirestoreValue]
    {
        var values: [FirestoreValue] = []
        for (index, item) in array.values.enumerated() {
            values.append(try FirestoreValue(proto: item, field: "\(field).values[\(index)]"))
        }
        return values
    }
}

extension Precondition {
    /// A `Precondition` (an empty one is none: `nil`).
    init?(proto: Google_Firestore_V1_Precondition) throws(FirestoreError) {
        switch proto.conditionType {
        case .exists(let exists): self = .exists(exists)
        case .updateTime(let time): self = .updateTime(Timestamp(seconds: time.seconds, nanos: time.nanos))
        case nil: return nil
        }
    }
}

extension TransactionMode {
    /// `TransactionOptions` (read-write when neither mode is set).
    init(proto: Google_Firestore_V1_TransactionOptions) {
        switch proto.mode {
        case .readOnly(let readOnly):
            switch readOnly.consistencySelector {
            case .readTime(let time): self = .readOnly(readTime: Timestamp(seconds: time.seconds, nanos: time.nanos))
            case nil: self = .readOnly(readTime: nil)
            }
        case .readWrite(let readWrite):
            self = .readWrite(retrying: readWrite.retryTransaction.isEmpty ? nil : Array(readWrite.retryTransaction))
        case nil:
            self = .readWrite()
        }
    }
}

extension Google_Firestore_V1_DocumentMask {
    /// The mask's field paths, parsed.
    var paths: [FieldPath] {
        get throws(FirestoreError) { try FieldPath.fieldPaths(fieldPaths) }
    }
}

extension StructuredQuery {
    /// A `StructuredQuery` over the collections below `parent`, validated as production validates it.
    init(proto: Google_Firestore_V1_StructuredQuery, parent: DocumentPath) throws(FirestoreError) {
        let findNearest = proto.hasFindNearest ? try FindNearest(proto: proto.findNearest) : nil
        guard proto.from.count <= 1 else {
            throw FirestoreError(.invalidArgument, "StructuredQuery.from cannot have more than one collection selector.")
        }
        self.init(
            parent: parent, collectionID: proto.from.first?.collectionID ?? "",
            allDescendants: proto.from.first?.allDescendants ?? false)
        if proto.hasSelect {
            var paths: [FieldPath] = []
            for reference in proto.select.fields { paths.append(try FieldPath(validating: reference.fieldPath)) }
            projection = paths
        }
        if proto.hasWhere { filter = try Self.filter(proto.where) }
        for order in proto.orderBy {
            orderBy.append(
                QueryOrder(field: try FieldPath(validating: order.field.fieldPath), descending: order.direction == .descending))
        }
        if proto.hasStartAt { startAt = try Self.cursor(proto.startAt, field: "structured_query.start_at") }
        if proto.hasEndAt { endAt = try Self.cursor(proto.endAt, field: "structured_query.end_at") }
        offset = Int(proto.offset)
        if proto.hasLimit { limit = Int(proto.limit.value) }
        self.findNearest = findNearest
        try validate()
    }

    /// A `Filter`.
    private static func filter(_ proto: Google_Firestore_V1_StructuredQuery.Filter) throws(FirestoreError) -> QueryFilter {
        switch proto.filterType {
        case .compositeFilter(let composite):
            guard let op = CompositeOperator.allCases.element(at: composite.op.rawValue - 1) else {
                throw FirestoreError(.invalidArgument, "Unknown CompositeFilter operator.")
            }
            var filters: [QueryFilter] = []
            for child in composite.filters { filters.append(try filter(child)) }
            return .composite(op, filters)
        case .fieldFilter(let field):
            guard let op = FieldOperator.allCases.element(at: field.op.rawValue - 1) else {
                throw FirestoreError(.invalidArgument, "Unknown FieldFilter operator.")
            }
            let value = try FirestoreValue(proto: field.value, field: "structured_query.where.field_filter.value")
            return .field(try FieldPath(validating: field.field.fieldPath), op, value)
        case .unaryFilter(let unary):
            guard let op = UnaryOperator.allCases.element(at: unary.op.rawValue - 2) else {
                throw FirestoreError(.invalidArgument, "Unknown UnaryFilter operator.")
            }
            return .unary(try FieldPath(validating: unary.field.fieldPath), op)
        case nil:
            throw FirestoreError(.invalidArgument, "A filter must set one of composite_filter, field_filter or unary_filter.")
        }
    }

    /// A `Cursor`.
    private static func cursor(_ proto: Google_Firestore_V1_Cursor, field: String) throws(FirestoreError) -> QueryCursor {
        var values: [FirestoreValue] = []
        for (index, value) in proto.values.enumerated() {
            values.append(try FirestoreValue(proto: value, field: "\(field).values[\(index)]"))
        }
        return QueryCursor(values: values, before: proto.before)
    }
}

extension AggregationQuery {
    /// A `StructuredAggregationQuery` over the collections below `parent`, validated; unnamed aggregations
    /// get production's `field_<n>` aliases.
    init(proto: Google_Firestore_V1_StructuredAggregationQuery, parent: DocumentPath) throws(FirestoreError) {
        guard case .structuredQuery(let queryProto) = proto.queryType else {
            throw FirestoreError(.invalidArgument, "A structured aggregation query requires a structured_query.")
        }
        let query = try StructuredQuery(proto: queryProto, parent: parent)
        var aggregations: [Aggregation] = []
        for item in proto.aggregations {
            let kind: Aggregation.Kind
            switch item.operator {
            case .count(let count): kind = .count(upTo: count.hasUpTo ? count.upTo.value : nil)
            case .sum(let sum): kind = .sum(try FieldPath(validating: sum.field.fieldPath))
            case .avg(let average): kind = .average(try FieldPath(validating: average.field.fieldPath))
            case nil: throw FirestoreError(.invalidArgument, "An aggregation must set one of count, sum or avg.")
            }
            aggregations.append(Aggregation(alias: item.alias, kind: kind))
        }
        try self.init(query: query, aggregations: aggregations)
    }
}

extension Array {
    /// The element at `index`, or `nil` outside the array.
    fileprivate func element(at index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

extension FindNearest {
    /// A `StructuredQuery.FindNearest`, validated (see `FindNearest.validated`).
    init(proto: Google_Firestore_V1_StructuredQuery.FindNearest) throws(FirestoreError) {
        let measure: Measure? =
            switch proto.distanceMeasure {
            case .euclidean: .euclidean
            case .cosine: .cosine
            case .dotProduct: .dotProduct
            case .unspecified, .UNRECOGNIZED: nil
            }
        self = try FindNearest.validated(
            vectorField: proto.vectorField.fieldPath,
            queryVector: proto.hasQueryVector ? try FirestoreValue(proto: proto.queryVector, field: "find_nearest.query_vector") : nil,
            measure: measure, limit: proto.hasLimit ? Int64(proto.limit.value) : nil,
            distanceResultField: proto.distanceResultField,
            distanceThreshold: proto.hasDistanceThreshold ? proto.distanceThreshold.value : nil)
    }
}
