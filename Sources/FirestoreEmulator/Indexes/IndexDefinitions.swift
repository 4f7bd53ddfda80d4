import EmulatorCore

/// How an index orders one field: ascending, descending, or by each of an array's elements (`CONTAINS`).
enum IndexFieldKind: String, Sendable, Hashable, CaseIterable {
    case ascending = "ASCENDING"
    case descending = "DESCENDING"
    case contains = "CONTAINS"
}

/// Which queries an index serves: those of one collection (`COLLECTION`), or collection group queries
/// (`COLLECTION_GROUP`).
enum IndexScope: String, Sendable, Hashable {
    case collection = "COLLECTION"
    case collectionGroup = "COLLECTION_GROUP"
}

/// One field of an index.
struct IndexField: Sendable, Hashable {
    /// The field indexed (`__name__` for the document name).
    var path: FieldPath
    /// How it is ordered.
    var kind: IndexFieldKind
}

/// A composite index: `firestore.indexes.json`'s `indexes` entries, and what a query needs.
struct CompositeIndex: Sendable, Hashable {
    /// The collection id it indexes (`collectionGroup`).
    var collectionGroup: String
    /// Which queries it serves.
    var scope: IndexScope
    /// Its fields in order, without the trailing `__name__` in the direction of the field before it, which
    /// every index has.
    var fields: [IndexField]

    /// The index with its fields in `firestore.indexes.json`'s form, the implicit `__name__` left out.
    init(collectionGroup: String, scope: IndexScope, fields: [IndexField]) {
        self.collectionGroup = collectionGroup
        self.scope = scope
        var fields = fields
        if let last = fields.last, last.path == .documentName, last.kind != .contains {
            let before = fields.dropLast().last?.kind ?? .ascending
            if last.kind == before || (before == .contains && last.kind == .ascending) { fields.removeLast() }
        }
        self.fields = fields
    }

    /// The entry of `firestore.indexes.json` that declares it.
    var json: JSONValue {
        [
            "collectionGroup": .string(collectionGroup), "queryScope": .string(scope.rawValue),
            "fields": .array(fields.map { field in
                field.kind == .contains
                    ? ["fieldPath": .string(field.path.description), "arrayConfig": "CONTAINS"]
                    : ["fieldPath": .string(field.path.description), "order": .string(field.kind.rawValue)]
            }),
        ]
    }
}

/// The single-field indexes of one field that `fieldOverrides` in `firestore.indexes.json` set (replacing the
/// automatic ones: ascending, descending and array-contains, collection scope).
struct FieldOverride: Sendable, Hashable {
    /// The collection id.
    var collectionGroup: String
    /// The field.
    var path: FieldPath
    /// The single-field indexes the field has instead of the automatic ones (none: exempt from indexing).
    var indexes: Set<SingleFieldIndex>
}

/// A single-field index: a field's order and scope.
struct SingleFieldIndex: Sendable, Hashable {
    /// How the field is ordered.
    var kind: IndexFieldKind
    /// Which queries it serves.
    var scope: IndexScope

    /// What every field has unless `fieldOverrides` say otherwise.
    static let automatic: Set<SingleFieldIndex> = [
        SingleFieldIndex(kind: .ascending, scope: .collection), SingleFieldIndex(kind: .descending, scope: .collection),
        SingleFieldIndex(kind: .contains, scope: .collection),
    ]
}

/// The indexes a `firestore.indexes.json` declares (the file `firebase deploy --only firestore:indexes`
/// reads): composite indexes and the single-field overrides.
struct IndexDefinitions: Sendable, Equatable {
    /// The composite indexes.
    var indexes: Set<CompositeIndex> = []
    /// The single-field overrides, by collection id and field.
    var overrides: [String: [FieldPath: Set<SingleFieldIndex>]] = [:]

    /// No index declared.
    init() {}

    /// Reads a `firestore.indexes.json` text; throws a message naming the entry that cannot be read.
    init(json text: String) throws(ConfigError) {
        let root: JSONValue
        do {
            root = try JSONValue.parse(text)
        } catch {
            throw ConfigError("not valid JSON: \(error)")
        }
        guard root.objectValue != nil else { throw ConfigError("expected a JSON object at the top") }
        for (index, entry) in (root["indexes"]?.arrayValue ?? []).enumerated() {
            let at = "indexes[\(index)]"
            guard let group = entry["collectionGroup"]?.stringValue ?? entry["collectionId"]?.stringValue else {
                throw ConfigError("\(at): collectionGroup is required")
            }
            let scope = try Self.scope(entry["queryScope"], at: at)
            guard let fields = entry["fields"]?.arrayValue, !fields.isEmpty else {
                throw ConfigError("\(at): fields must list at least one field")
            }
            var parsed: [IndexField] = []
            for (position, field) in fields.enumerated() {
                let fieldAt = "\(at).fields[\(position)]"
                let path = try Self.path(field["fieldPath"], at: fieldAt)
                if field["arrayConfig"]?.stringValue == "CONTAINS" {
                    parsed.append(IndexField(path: path, kind: .contains))
                } else if let order = field["order"]?.stringValue, let kind = IndexFieldKind(rawValue: order), kind != .contains {
                    parsed.append(IndexField(path: path, kind: kind))
                } else if field["vectorConfig"] != nil {
                    continue  // vector indexes serve findNearest, which is not checked
                } else {
                    throw ConfigError("\(fieldAt): expected \"order\": ASCENDING or DESCENDING, or \"arrayConfig\": CONTAINS")
                }
            }
            indexes.insert(CompositeIndex(collectionGroup: group, scope: scope, fields: parsed))
        }
        for (index, entry) in (root["fieldOverrides"]?.arrayValue ?? []).enumerated() {
            let at = "fieldOverrides[\(index)]"
            guard let group = entry["collectionGroup"]?.stringValue else { throw ConfigError("\(at): collectionGroup is required") }
            let path = try Self.path(entry["fieldPath"], at: at)
            var set = Set<SingleFieldIndex>()
            for (position, single) in (entry["indexes"]?.arrayValue ?? []).enumerated() {
                let singleAt = "\(at).indexes[\(position)]"
                let scope = try Self.scope(single["queryScope"], at: singleAt)
                if single["arrayConfig"]?.stringValue == "CONTAINS" {
                    set.insert(SingleFieldIndex(kind: .contains, scope: scope))
                } else if let order = single["order"]?.stringValue, let kind = IndexFieldKind(rawValue: order), kind != .contains {
                    set.insert(SingleFieldIndex(kind: kind, scope: scope))
                } else {
                    throw ConfigError("\(singleAt): expected \"order\": ASCENDING or DESCENDING, or \"arrayConfig\": CONTAINS")
                }
            }
            overrides[group, default: [:]][path] = set
        }
    }

    /// The single-field indexes `path` of collection `group` has.
    func singleFieldIndexes(of path: FieldPath, in group: String) -> Set<SingleFieldIndex> {
        overrides[group]?[path] ?? SingleFieldIndex.automatic
    }

    private static func scope(_ value: JSONValue?, at location: String) throws(ConfigError) -> IndexScope {
        guard let value else { return .collection }
        guard let text = value.stringValue, let scope = IndexScope(rawValue: text) else {
            throw ConfigError("\(location).queryScope: expected COLLECTION or COLLECTION_GROUP, got \(value.serialized())")
        }
        return scope
    }

    private static func path(_ value: JSONValue?, at location: String) throws(ConfigError) -> FieldPath {
        guard let text = value?.stringValue, let path = FieldPath(parsing: text) else {
            throw ConfigError("\(location).fieldPath: expected a field path")
        }
        return path
    }
}
