import EmulatorCore

/// proto3 JSON for `google.firestore.v1.Write` and the messages inside it, as REST clients send them, and for
/// the `WriteResult` and `Document` the API returns. Members may use their JSON (`updateMask`) or proto
/// (`update_mask`) names; `null` members count as absent. Messages name fields by their proto path, as
/// production does: `writes[0].update_transforms[1].increment`.
extension Write {
    /// Decodes a `Write`: exactly one of `update`, `delete`, `verify` and `transform`, with `updateMask`,
    /// `updateTransforms` and `currentDocument`. Every document named must be in `database`. `field` is
    /// where the write sits in the request, e.g. `writes[0]`.
    init(json: JSONValue, database: DatabaseName, field: String) throws(FirestoreError) {
        let write = try ProtoJSONObject(
            json, field: field, type: "google.firestore.v1.Write",
            names: ["update", "delete", "verify", "transform", "updateMask", "updateTransforms", "currentDocument"])
        let kind = try write.oneof("operation", among: ["update", "delete", "verify", "transform"])
        var transforms: [FieldTransform] = []
        switch kind {
        case "update":
            let document = try ProtoJSONObject(
                write["update"], field: write.path("update"), type: "google.firestore.v1.Document",
                names: ["name", "fields", "createTime", "updateTime"])
            path = try Self.documentPath(try document.string("name") ?? "", in: database)
            if document["fields"] == .null {
                operation = .update(fields: [:])
            } else {
                operation = .update(fields: try FirestoreValue.fields(document["fields"], field: document.path("fields")))
            }
        case "delete", "verify":
            path = try Self.documentPath(try write.string(kind) ?? "", in: database)
            operation = kind == "delete" ? .delete : .verify
        default:
            let transform = try ProtoJSONObject(
                write["transform"], field: write.path("transform"), type: "google.firestore.v1.DocumentTransform",
                names: ["document", "fieldTransforms"])
            path = try Self.documentPath(try transform.string("document") ?? "", in: database)
            operation = .transform
            transforms = try Self.transforms(transform, "fieldTransforms")
        }
        if write["updateMask"] != .null {
            let mask = try ProtoJSONObject(
                write["updateMask"], field: write.path("updateMask"), type: "google.firestore.v1.DocumentMask",
                names: ["fieldPaths"])
            updateMask = try FieldPath.fieldPaths(try mask.strings("fieldPaths"))
        }
        transforms += try Self.transforms(write, "updateTransforms")
        self.transforms = transforms
        let precondition = write["currentDocument"]
        if precondition != .null, precondition != [:] {
            self.precondition = try Precondition(json: precondition, field: write.path("currentDocument"))
        }
    }

    /// The `FieldTransform` list in member `name`.
    private static func transforms(_ object: ProtoJSONObject, _ name: String) throws(FirestoreError) -> [FieldTransform] {
        var transforms: [FieldTransform] = []
        for (index, item) in try object.array(name).enumerated() {
            transforms.append(try FieldTransform(json: item, field: "\(object.path(name))[\(index)]"))
        }
        return transforms
    }
}

extension FieldTransform {
    /// Decodes a `DocumentTransform.FieldTransform`: `fieldPath` and exactly one transformation.
    init(json: JSONValue, field: String) throws(FirestoreError) {
        let object = try ProtoJSONObject(
            json, field: field, type: "google.firestore.v1.DocumentTransform.FieldTransform",
            names: [
                "fieldPath", "setToServerValue", "increment", "maximum", "minimum", "appendMissingElements",
                "removeAllFromArray",
            ])
        self.field = try FieldPath(validating: try object.string("fieldPath") ?? "")
        let name = try object.oneof(
            "transform_type",
            among: ["setToServerValue", "increment", "maximum", "minimum", "appendMissingElements", "removeAllFromArray"])
        let payload = object[name]
        let path = object.path(name)
        switch name {
        case "setToServerValue":
            guard payload == "REQUEST_TIME" || payload == 1 else {
                throw FirestoreError(
                    .invalidArgument,
                    "Invalid value at '\(path)' (type.googleapis.com/google.firestore.v1.DocumentTransform.FieldTransform.ServerValue), \(payload.serialized())"
                )
            }
            kind = .serverTimestamp
        case "increment": kind = .increment(try FirestoreValue(json: payload, field: path))
        case "maximum": kind = .maximum(try FirestoreValue(json: payload, field: path))
        case "minimum": kind = .minimum(try FirestoreValue(json: payload, field: path))
        case "appendMissingElements": kind = .appendMissingElements(try Self.elements(payload, field: path))
        default: kind = .removeAllFromArray(try Self.elements(payload, field: path))
        }
    }

    /// The values of an `ArrayValue` (`{"values": [...]}`).
    private static func elements(_ json: JSONValue, field: String) throws(FirestoreError) -> [FirestoreValue] {
        let array = try ProtoJSONObject(json, field: field, type: "google.firestore.v1.ArrayValue", names: ["values"])
        var values: [FirestoreValue] = []
        for (index, item) in try array.array("values").enumerated() {
            values.append(try FirestoreValue(json: item, field: "\(array.path("values"))[\(index)]"))
        }
        return values
    }
}

extension Precondition {
    /// Decodes a `Precondition`: exactly one of `exists` and `updateTime`.
    init(json: JSONValue, field: String) throws(FirestoreError) {
        let object = try ProtoJSONObject(json, field: field, type: "google.firestore.v1.Precondition", names: ["exists", "updateTime"])
        if try object.oneof("condition_type", among: ["exists", "updateTime"]) == "exists" {
            self = .exists(try object.bool("exists") ?? false)
        } else {
            self = .updateTime(try object.timestamp("updateTime") ?? Timestamp(seconds: 0, nanos: 0))
        }
    }
}

extension WriteResult {
    /// `{"updateTime": "...", "transformResults": [...]}`, each member omitted when unset or empty.
    var json: JSONValue {
        var object: [String: JSONValue] = [:]
        if let updateTime { object["updateTime"] = .string(updateTime.description) }
        if !transformResults.isEmpty { object["transformResults"] = .array(transformResults.map(\.json)) }
        return .object(object)
    }
}

extension Document {
    /// `{"name", "fields", "createTime", "updateTime"}`; `fields` is omitted when empty, as production does.
    func json(in database: DatabaseName) -> JSONValue {
        var object: [String: JSONValue] = [
            "name": .string(path.name(in: database)),
            "createTime": .string(createTime.description),
            "updateTime": .string(updateTime.description),
        ]
        if !fields.isEmpty { object["fields"] = .object(fields.mapValues(\.json)) }
        return .object(object)
    }
}

/// A document as REST answers it, written as JSON text without a `JSONValue` tree: the same text as
/// `document.json(in: database).serialized()`.
struct DocumentJSON: JSONWritable {
    let document: Document
    let database: DatabaseName

    func write(to writer: inout JSONWriter) {
        // Keys in sorted order: createTime, fields, name, updateTime.
        writer.raw(#"{"createTime":"#)
        document.createTime.write(to: &writer)
        if !document.fields.isEmpty {
            writer.raw(#","fields":"#)
            FirestoreValue.writeJSON(document.fields, to: &writer)
        }
        writer.raw(#","name":"#)
        document.path.writeName(in: database, to: &writer)
        writer.raw(#","updateTime":"#)
        document.updateTime.write(to: &writer)
        writer.raw("}")
    }
}

extension Timestamp {
    /// Writes the time as proto3 JSON writes it: an RFC 3339 string (see `FirestoreValue.formatTimestamp`).
    func write(to writer: inout JSONWriter) {
        FirestoreValue.writeTimestamp(seconds: seconds, nanos: nanos, to: &writer)
    }
}

extension DocumentPath {
    /// Writes the full resource name in `database` as a JSON string, piece by piece: what `name(in:)` spells,
    /// without building it.
    func writeName(in database: DatabaseName, to writer: inout JSONWriter) {
        writer.raw(#""projects/"#)
        writer.unquoted(database.project)
        writer.raw("/databases/")
        writer.unquoted(database.database)
        writer.raw("/documents")
        for segment in segments {
            writer.raw("/")
            writer.unquoted(segment)
        }
        writer.raw("\"")
    }
}

/// A proto3 JSON object being decoded as message `type`: unknown members are production's `Cannot find
/// field` error, and each member is looked up by its JSON name.
private struct ProtoJSONObject {
    /// The members by JSON name, `null` ones dropped.
    private let members: [String: JSONValue]
    /// Where the object sits in the request, e.g. `writes[0].update`.
    let field: String

    /// Reads `json` as a message whose members have the JSON `names`.
    init(_ json: JSONValue, field: String, type: String, names: [String]) throws(FirestoreError) {
        self.field = field
        members = try ProtoName.members(of: json, at: field, type: type, fields: names)
    }

    /// The member `name`, or `null` when absent.
    subscript(name: String) -> JSONValue { members[name] ?? .null }

    /// The path of member `name` for messages: `field.proto_name`.
    func path(_ name: String) -> String { "\(field).\(ProtoName.snakeCase(name))" }

    /// Which one of the `oneof` members `among` is set; none or several is INVALID_ARGUMENT.
    func oneof(_ oneof: String, among names: [String]) throws(FirestoreError) -> String {
        var set: String?
        for name in names where members[name] != nil {
            if set != nil {
                throw FirestoreError(
                    .invalidArgument,
                    "Invalid JSON payload received. Oneof field '\(oneof)' is already set. Cannot set '\(name)' at '\(field)'.")
            }
            set = name
        }
        guard let name = set else {
            throw FirestoreError(
                .invalidArgument, "Invalid value at '\(field)': one of \(names.joined(separator: ", ")) must be set.")
        }
        return name
    }

    /// The string member `name`, if present.
    func string(_ name: String) throws(FirestoreError) -> String? {
        guard let value = members[name] else { return nil }
        guard let text = value.stringValue else { throw invalid(name, "TYPE_STRING", value) }
        return text
    }

    /// The boolean member `name`, if present.
    func bool(_ name: String) throws(FirestoreError) -> Bool? {
        guard let value = members[name] else { return nil }
        guard let flag = value.boolValue else { throw invalid(name, "TYPE_BOOL", value) }
        return flag
    }

    /// The `google.protobuf.Timestamp` member `name` (RFC 3339 text), if present.
    func timestamp(_ name: String) throws(FirestoreError) -> Timestamp? {
        guard let value = members[name] else { return nil }
        guard let text = value.stringValue, let (seconds, nanos) = FirestoreValue.parseTimestamp(text) else {
            throw invalid(name, "type.googleapis.com/google.protobuf.Timestamp", value)
        }
        return Timestamp(seconds: seconds, nanos: nanos)
    }

    /// The repeated member `name` (empty when absent).
    func array(_ name: String) throws(FirestoreError) -> [JSONValue] {
        guard let value = members[name] else { return [] }
        guard let items = value.arrayValue else { throw invalid(name, "TYPE_MESSAGE", value) }
        return items
    }

    /// The repeated string member `name` (empty when absent).
    func strings(_ name: String) throws(FirestoreError) -> [String] {
        var texts: [String] = []
        for (index, item) in try array(name).enumerated() {
            guard let text = item.stringValue else { throw invalid("\(name)[\(index)]", "TYPE_STRING", item) }
            texts.append(text)
        }
        return texts
    }

    private func invalid(_ name: String, _ type: String, _ value: JSONValue) -> FirestoreError {
        FirestoreError(.invalidArgument, "Invalid value at '\(path(name))' (\(type)), \(value.serialized())")
    }

}
