import EmulatorCore
import SecurityRules

extension FirestoreValue {
    /// The value as rules see it: integers as `int`, doubles as `float`, references as paths
    /// (`/databases/{d}/documents/...`), geo points as `latlng`, timestamps and bytes as themselves.
    var ruleValue: RuleValue {
        switch self {
        case .null: return .null
        case .boolean(let value): return .bool(value)
        case .integer(let value): return .int(value)
        case .double(let value): return .float(value)
        case .timestamp(let seconds, let nanos): return .timestamp(RuleTimestamp(seconds: seconds, nanos: nanos))
        case .string(let value): return .string(value)
        case .bytes(let value): return .bytes(value)
        case .reference(let name):
            let parts = name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            guard parts.count >= 5, parts[0] == "projects", parts[2] == "databases" else { return .string(name) }
            return .path(RulePath(segments: Array(parts.dropFirst(2))))
        case .geoPoint(let latitude, let longitude): return .latlng(RuleLatLng(latitude: latitude, longitude: longitude))
        case .array(let values): return .list(values.map(\.ruleValue))
        case .map(let fields): return .map(fields.mapValues(\.ruleValue))
        }
    }
}

extension Document {
    /// The document as rules see `resource` and `get()` results: `{data, id, __name__}`.
    func ruleValue(in database: DatabaseName) -> RuleValue {
        .map([
            "data": .map(fields.mapValues(\.ruleValue)),
            "id": .string(id),
            "__name__": .path(path.rulePath(in: database)),
        ])
    }
}

extension DocumentPath {
    /// The path rules match against: `/databases/{database}/documents/...`.
    func rulePath(in database: DatabaseName) -> RulePath {
        RulePath(segments: ["databases", database.database, "documents"] + segments)
    }

    /// The document path of a rules path in `database`, or `nil` if it names another database or no document.
    init?(rulePath: RulePath, in database: DatabaseName) {
        let segments = rulePath.segments
        guard segments.count >= 5, segments[0] == "databases", segments[1] == database.database,
            segments[2] == "documents", !segments.count.isMultiple(of: 2)
        else { return nil }
        self.init(segments: Array(segments.dropFirst(3)))
    }
}
