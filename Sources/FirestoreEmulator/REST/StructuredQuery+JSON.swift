import EmulatorCore

/// proto3 JSON for `google.firestore.v1.StructuredQuery` (RunQuery, Listen query targets).
extension StructuredQuery {
    /// Decodes a `structuredQuery` over the collections below `parent`, then validates it as production does;
    /// `location` names it in error messages. Errors are INVALID_ARGUMENT.
    init(json: JSONValue, parent: DocumentPath, location: String = "structured_query") throws(FirestoreError) {
        let object = try ProtoObject(json, at: location, type: "StructuredQuery", fields: Self.fieldNames)
        let findNearest = try object.message("findNearest", type: "StructuredQuery.FindNearest", fields: Self.findNearestFieldNames)
            .map { (search: ProtoObject) throws(FirestoreError) in try Self.findNearest(search) }
        let from = try object.messages("from", type: "StructuredQuery.CollectionSelector", fields: ["collectionId", "allDescendants"])
        guard from.count <= 1 else {
            throw FirestoreError(.invalidArgument, "StructuredQuery.from cannot have more than one collection selector.")
        }
        self.init(
            parent: parent, collectionID: try from.first?.string("collectionId") ?? "",
            allDescendants: try from.first?.bool("allDescendants") ?? false)
        if let select = try object.message("select", type: "StructuredQuery.Projection", fields: ["fields"]) {
            var paths: [FieldPath] = []
            for reference in try select.messages("fields", type: "StructuredQuery.FieldReference", fields: ["fieldPath"]) {
                paths.append(try reference.fieldPath())
            }
            projection = paths
        }
        if let filter = try object.message("where", type: "StructuredQuery.Filter", fields: Self.filterFieldNames) {
            self.filter = try Self.filter(filter)
        }
        for order in try object.messages("orderBy", type: "StructuredQuery.Order", fields: ["field", "direction"]) {
            let direction = try order.enumeration(
                "direction", type: "StructuredQuery.Direction", names: ["DIRECTION_UNSPECIFIED", "ASCENDING", "DESCENDING"])
            orderBy.append(QueryOrder(field: try order.fieldReference("field"), descending: direction == "DESCENDING"))
        }
        startAt = try Self.cursor(object, "startAt")
        endAt = try Self.cursor(object, "endAt")
        offset = Int(try object.integer("offset", bits: 32) ?? 0)
        limit = try object.integer("limit", bits: 32, wrapped: true).map { Int($0) }
        self.findNearest = findNearest
        try validate()
    }

    /// The fields of `StructuredQuery.FindNearest`.
    private static let findNearestFieldNames = [
        "vectorField", "queryVector", "distanceMeasure", "limit", "distanceResultField", "distanceThreshold",
    ]

    /// A `FindNearest`, validated (see `FindNearest.validated`).
    private static func findNearest(_ object: ProtoObject) throws(FirestoreError) -> FindNearest {
        let measure = try object.enumeration(
            "distanceMeasure", type: "StructuredQuery.FindNearest.DistanceMeasure",
            names: ["DISTANCE_MEASURE_UNSPECIFIED"] + FindNearest.Measure.allCases.map(\.rawValue))
        return try FindNearest.validated(
            vectorField: try object.message("vectorField", type: "StructuredQuery.FieldReference", fields: ["fieldPath"])?
                .string("fieldPath") ?? "",
            queryVector: try object["queryVector"].map { (json: JSONValue) throws(FirestoreError) in
                try FirestoreValue(json: json, field: object.location(of: "queryVector"))
            },
            measure: measure.flatMap(FindNearest.Measure.init(rawValue:)),
            limit: try object.integer("limit", bits: 32, wrapped: true), distanceResultField: try object.string("distanceResultField"),
            distanceThreshold: try object.double("distanceThreshold", wrapped: true))
    }

    /// The fields of `StructuredQuery`.
    private static let fieldNames = [
        "select", "from", "where", "orderBy", "startAt", "endAt", "offset", "limit", "findNearest",
    ]
    /// The fields of `StructuredQuery.Filter` (its `filter_type` oneof).
    private static let filterFieldNames = ["compositeFilter", "fieldFilter", "unaryFilter"]

    /// A `Filter`: exactly one of its three kinds.
    private static func filter(_ object: ProtoObject) throws(FirestoreError) -> QueryFilter {
        let kinds = filterFieldNames.filter { object[$0] != nil }
        if kinds.count > 1 {
            throw FirestoreError(
                .invalidArgument, "Invalid JSON payload received. Oneof field 'filter_type' is already set. Cannot set '\(kinds[1])'")
        }
        if let composite = try object.message("compositeFilter", type: "StructuredQuery.CompositeFilter", fields: ["op", "filters"]) {
            let name = try composite.enumeration(
                "op", type: "StructuredQuery.CompositeFilter.Operator", names: ["OPERATOR_UNSPECIFIED", "AND", "OR"])
            guard let op = name.flatMap(CompositeOperator.init(rawValue:)) else {
                throw FirestoreError(.invalidArgument, "Unknown CompositeFilter operator.")
            }
            var filters: [QueryFilter] = []
            for child in try composite.messages("filters", type: "StructuredQuery.Filter", fields: filterFieldNames) {
                filters.append(try filter(child))
            }
            return .composite(op, filters)
        }
        if let field = try object.message("fieldFilter", type: "StructuredQuery.FieldFilter", fields: ["field", "op", "value"]) {
            let name = try field.enumeration(
                "op", type: "StructuredQuery.FieldFilter.Operator", names: ["OPERATOR_UNSPECIFIED"] + FieldOperator.allCases.map(\.rawValue))
            guard let op = name.flatMap(FieldOperator.init(rawValue:)) else {
                throw FirestoreError(.invalidArgument, "Unknown FieldFilter operator.")
            }
            let value = try FirestoreValue(json: field["value"] ?? [:], field: field.location(of: "value"))
            return .field(try field.fieldReference("field"), op, value)
        }
        if let unary = try object.message("unaryFilter", type: "StructuredQuery.UnaryFilter", fields: ["op", "field"]) {
            let name = try unary.enumeration(
                "op", type: "StructuredQuery.UnaryFilter.Operator",
                names: ["OPERATOR_UNSPECIFIED", nil] + UnaryOperator.allCases.map(\.rawValue))
            guard let op = name.flatMap(UnaryOperator.init(rawValue:)) else {
                throw FirestoreError(.invalidArgument, "Unknown UnaryFilter operator.")
            }
            return .unary(try unary.fieldReference("field"), op)
        }
        throw FirestoreError(.invalidArgument, "A filter must set one of composite_filter, field_filter or unary_filter.")
    }

    /// A `Cursor` field.
    private static func cursor(_ object: ProtoObject, _ field: String) throws(FirestoreError) -> QueryCursor? {
        guard let cursor = try object.message(field, type: "Cursor", fields: ["values", "before"]) else { return nil }
        var values: [FirestoreValue] = []
        if let list = cursor["values"] {
            guard case .array(let elements) = list else {
                throw ProtoObject.invalidValue(list, at: cursor.location(of: "values"), type: "type.googleapis.com/google.firestore.v1.Value")
            }
            for (index, element) in elements.enumerated() {
                values.append(try FirestoreValue(json: element, field: "\(cursor.location(of: "values"))[\(index)]"))
            }
        }
        return QueryCursor(values: values, before: try cursor.bool("before") ?? false)
    }
}

/// proto3 JSON for `google.firestore.v1.StructuredAggregationQuery` (RunAggregationQuery).
extension AggregationQuery {
    /// Decodes a `structuredAggregationQuery` over the collections below `parent` and validates it; unnamed
    /// aggregations get production's `field_<n>` aliases.
    init(json: JSONValue, parent: DocumentPath) throws(FirestoreError) {
        let object = try ProtoObject(
            json, at: "structured_aggregation_query", type: "StructuredAggregationQuery", fields: ["structuredQuery", "aggregations"])
        guard let queryJSON = object["structuredQuery"] else {
            throw FirestoreError(.invalidArgument, "A structured aggregation query requires a structured_query.")
        }
        let query = try StructuredQuery(json: queryJSON, parent: parent, location: object.location(of: "structuredQuery"))
        var aggregations: [Aggregation] = []
        for item in try object.messages(
            "aggregations", type: "StructuredAggregationQuery.Aggregation", fields: ["alias", "count", "sum", "avg"])
        {
            aggregations.append(Aggregation(alias: try item.string("alias") ?? "", kind: try Self.kind(item)))
        }
        try self.init(query: query, aggregations: aggregations)
    }

    /// An aggregation's operator: exactly one of `count`, `sum` and `avg`.
    private static func kind(_ item: ProtoObject) throws(FirestoreError) -> Aggregation.Kind {
        let kinds = ["count", "sum", "avg"].filter { item[$0] != nil }
        if kinds.count > 1 {
            throw FirestoreError(
                .invalidArgument, "Invalid JSON payload received. Oneof field 'operator' is already set. Cannot set '\(kinds[1])'")
        }
        let type = "StructuredAggregationQuery.Aggregation"
        if let count = try item.message("count", type: type + ".Count", fields: ["upTo"]) {
            return .count(upTo: try count.integer("upTo", bits: 64, wrapped: true))
        }
        if let sum = try item.message("sum", type: type + ".Sum", fields: ["field"]) {
            return .sum(try sum.fieldReference("field"))
        }
        if let average = try item.message("avg", type: type + ".Avg", fields: ["field"]) {
            return .average(try average.fieldReference("field"))
        }
        throw FirestoreError(.invalidArgument, "An aggregation must set one of count, sum or avg.")
    }
}

/// One proto3 JSON object being decoded as Google's JSON transcoding reads it: fields by lowerCamelCase or
/// snake_case name, `null` for an unset field, unknown names rejected with production's message.
private struct ProtoObject {
    /// Where the object sits in the request (`structured_query.where.field_filter`), for messages.
    let location: String
    /// The set fields by lowerCamelCase name.
    private let members: [String: JSONValue]

    /// Reads `json` as a `google.firestore.v1.<type>` with the given lowerCamelCase field names.
    init(_ json: JSONValue, at location: String, type: String, fields: [String]) throws(FirestoreError) {
        self.location = location
        self.members = try ProtoName.members(of: json, at: location, type: "google.firestore.v1.\(type)", fields: fields)
    }

    /// The set field named `field` (lowerCamelCase).
    subscript(field: String) -> JSONValue? { members[field] }

    /// Where `field` sits, for messages.
    func location(of field: String) -> String { location + "." + ProtoName.snakeCase(field) }

    /// A message field.
    func message(_ field: String, type: String, fields: [String]) throws(FirestoreError) -> ProtoObject? {
        guard let json = members[field] else { return nil }
        return try ProtoObject(json, at: location(of: field), type: type, fields: fields)
    }

    /// A repeated message field (empty when unset).
    func messages(_ field: String, type: String, fields: [String]) throws(FirestoreError) -> [ProtoObject] {
        guard let json = members[field] else { return [] }
        guard case .array(let elements) = json else {
            throw Self.invalidValue(json, at: location(of: field), type: "type.googleapis.com/google.firestore.v1.\(type)")
        }
        var objects: [ProtoObject] = []
        for (index, element) in elements.enumerated() {
            objects.append(try ProtoObject(element, at: "\(location(of: field))[\(index)]", type: type, fields: fields))
        }
        return objects
    }

    /// A string field.
    func string(_ field: String) throws(FirestoreError) -> String? {
        guard let json = members[field] else { return nil }
        guard case .string(let value) = json else { throw Self.invalidValue(json, at: location(of: field), type: "TYPE_STRING") }
        return value
    }

    /// A bool field.
    func bool(_ field: String) throws(FirestoreError) -> Bool? {
        guard let json = members[field] else { return nil }
        guard case .bool(let value) = json else { throw Self.invalidValue(json, at: location(of: field), type: "TYPE_BOOL") }
        return value
    }

    /// An int32 or int64 field: a number or a decimal string, also as `{"value": n}` when `wrapped` (the
    /// `Int32Value` / `Int64Value` wrappers, as some clients send them).
    func integer(_ field: String, bits: Int, wrapped: Bool = false) throws(FirestoreError) -> Int64? {
        guard var json = members[field] else { return nil }
        if wrapped, case .object = json {
            let wrapper = try ProtoObject(json, at: location(of: field), type: "Int\(bits)Value", fields: ["value"])
            json = wrapper["value"] ?? 0
        }
        let value = json.intValue ?? json.stringValue.flatMap { Int64($0) }
        guard let value, bits == 64 || Int32(exactly: value) != nil else {
            throw Self.invalidValue(json, at: location(of: field), type: "TYPE_INT\(bits)")
        }
        return value
    }

    /// A double field: a number, or `"NaN"`, `"Infinity"`, `"-Infinity"` (or a numeric string), also as
    /// `{"value": x}` when `wrapped` (the `DoubleValue` wrapper).
    func double(_ field: String, wrapped: Bool = false) throws(FirestoreError) -> Double? {
        guard var json = members[field] else { return nil }
        if wrapped, case .object = json {
            let wrapper = try ProtoObject(json, at: location(of: field), type: "DoubleValue", fields: ["value"])
            json = wrapper["value"] ?? 0
        }
        if let number = json.doubleValue { return number }
        if case .string(let text) = json {
            switch text {
            case "NaN": return .nan
            case "Infinity": return .infinity
            case "-Infinity": return -.infinity
            default: if let number = Double(text) { return number }
            }
        }
        throw Self.invalidValue(json, at: location(of: field), type: "TYPE_DOUBLE")
    }

    /// An enum field by name or number (`names[number]`, `nil` for unused numbers); the name, `nil` when unset.
    func enumeration(_ field: String, type: String, names: [String?]) throws(FirestoreError) -> String? {
        guard let json = members[field] else { return nil }
        if case .string(let name) = json, names.contains(name) { return name }
        if let number = json.intValue, names.indices.contains(Int(number)), let name = names[Int(number)] { return name }
        throw Self.invalidValue(json, at: location(of: field), type: "type.googleapis.com/google.firestore.v1.\(type)")
    }

    /// This object as a `FieldReference`: its `fieldPath`, parsed as production parses field paths.
    func fieldPath() throws(FirestoreError) -> FieldPath {
        try FieldPath(validating: try string("fieldPath") ?? "")
    }

    /// A `FieldReference` field (an unset one is the empty, invalid path).
    func fieldReference(_ field: String) throws(FirestoreError) -> FieldPath {
        let type = "StructuredQuery.FieldReference"
        if let reference = try message(field, type: type, fields: ["fieldPath"]) { return try reference.fieldPath() }
        return try ProtoObject([:], at: location(of: field), type: type, fields: []).fieldPath()
    }

    /// Google's transcoding error for a value of the wrong type.
    static func invalidValue(_ json: JSONValue, at location: String, type: String) -> FirestoreError {
        FirestoreError(.invalidArgument, "Invalid value at '\(location)' (\(type)), \(json.serialized())")
    }

}
