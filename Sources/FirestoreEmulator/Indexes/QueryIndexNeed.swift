import EmulatorCore
import Foundation

/// An index a query needs that the declared ones lack, as production reports it.
enum MissingIndex: Sendable, Hashable {
    /// A composite index (production's "The query requires an index.").
    case composite(CompositeIndex)
    /// A single-field index taken away by `fieldOverrides`, or one of collection group scope, which are
    /// never automatic.
    case singleField(collectionGroup: String, path: FieldPath, SingleFieldIndex)

    /// Production's `FAILED_PRECONDITION` message, with the console link that creates the index.
    func message(in database: DatabaseName) -> String {
        let console = "https://console.firebase.google.com/v1/r/project/\(database.project)/firestore/indexes"
        switch self {
        case .composite(let index):
            return "The query requires an index. You can create it here: \(console)?create_composite=\(index.linkToken(in: database))"
        case .singleField(let group, let path, let index):
            let kind = index.kind == .contains ? "ARRAY_CONTAINS" : index.kind == .ascending ? "ASC" : "DESC"
            return "The query requires a \(index.scope.rawValue)_\(kind) index for collection \(group) and field \(path). "
                + "You can create it here: \(console)?create_exemption=\(index.linkToken(for: path, in: group, database: database))"
        }
    }

    /// The `firestore.indexes.json` text that declares it: an `indexes` or a `fieldOverrides` entry.
    var json: (key: String, entry: JSONValue) {
        switch self {
        case .composite(let index): return ("indexes", index.json)
        case .singleField(let group, let path, let index):
            let single: JSONValue = index.kind == .contains
                ? ["arrayConfig": "CONTAINS", "queryScope": .string(index.scope.rawValue)]
                : ["order": .string(index.kind.rawValue), "queryScope": .string(index.scope.rawValue)]
            return ("fieldOverrides", ["collectionGroup": .string(group), "fieldPath": .string(path.description), "indexes": [single]])
        }
    }
}

extension StructuredQuery {
    /// The first index this query needs that `definitions` (and the automatic single-field indexes) lack, or
    /// `nil` when it can run, following production's rules: a query with only equality and array-contains
    /// filters merges single-field indexes; one that orders by a single field (an inequality filter orders
    /// by its field) uses that field's single-field index; anything else needs a composite index of its
    /// equality fields followed by its orders, or composite indexes it can merge (each an equality field or
    /// more followed by the same orders). Collection group queries have no automatic single-field indexes.
    /// An OR query needs what each of its disjunctions needs. Vector search is not checked.
    func missingIndex(in definitions: IndexDefinitions) -> MissingIndex? {
        guard findNearest == nil else { return nil }
        let scope: IndexScope = allDescendants ? .collectionGroup : .collection
        let normalized = normalizedOrder.map { IndexField(path: $0.field, kind: $0.descending ? .descending : .ascending) }
        for conjunction in Self.disjunctions(of: filter) {
            var orders = normalized
            var equalities: [IndexField] = []
            for leaf in conjunction {
                let field: IndexField?
                switch leaf {
                case .field(let path, .equal, _), .field(let path, .in, _), .unary(let path, .isNull), .unary(let path, .isNaN):
                    field = IndexField(path: path, kind: .ascending)
                case .field(let path, .arrayContains, _), .field(let path, .arrayContainsAny, _):
                    field = IndexField(path: path, kind: .contains)
                default:
                    field = nil  // inequalities: ordered by, in `normalizedOrder`
                }
                if let field, field.path != .documentName, !equalities.contains(field) { equalities.append(field) }
            }
            // An order on a field an equality fixes orders nothing.
            orders.removeAll { order in order.path != .documentName && equalities.contains { $0.path == order.path && $0.kind != .contains } }
            // The trailing `__name__` every index has in the direction of the field before it.
            if let last = orders.last, last.path == .documentName, orders.count == 1 || orders[orders.count - 2].kind == last.kind {
                orders.removeLast()
            }
            if let missing = Self.missing(equalities: equalities, orders: orders, group: collectionID, scope: scope, definitions) {
                return missing
            }
        }
        return nil
    }

    private static func missing(
        equalities: [IndexField], orders: [IndexField], group: String, scope: IndexScope, _ definitions: IndexDefinitions
    ) -> MissingIndex? {
        let declared = definitions.indexes.filter { $0.collectionGroup == group && $0.scope == scope }
        let wanted = CompositeIndex(collectionGroup: group, scope: scope, fields: equalities + orders)
        func serves(_ index: CompositeIndex, prefix: Int) -> Bool {
            index.fields.count == prefix + orders.count && Array(index.fields.suffix(orders.count)) == orders
                && index.fields.prefix(prefix).allSatisfy { field in equalities.contains { $0.path == field.path && ($0.kind == .contains) == (field.kind == .contains) } }
        }
        if declared.contains(where: { serves($0, prefix: equalities.count) && Set($0.fields.prefix(equalities.count).map(\.path)).count == equalities.count }) {
            return nil
        }
        if orders.isEmpty || (equalities.isEmpty && orders.count == 1) {
            // Single-field indexes, merged for several equalities.
            for field in equalities + orders {
                let have = definitions.singleFieldIndexes(of: field.path, in: group)
                let fits = field.kind == .contains ? [SingleFieldIndex(kind: .contains, scope: scope)]
                    : orders.contains(field) ? [SingleFieldIndex(kind: field.kind, scope: scope)]
                    : [SingleFieldIndex(kind: .ascending, scope: scope), SingleFieldIndex(kind: .descending, scope: scope)]
                if !fits.contains(where: have.contains) {
                    return equalities.count + orders.count == 1 || scope == .collectionGroup
                        ? .singleField(collectionGroup: group, path: field.path, fits[0]) : .composite(wanted)
                }
            }
            return nil
        }
        // Composite indexes merged: each serves some of the equalities, followed by the orders.
        if !equalities.isEmpty {
            var covered = Set<FieldPath>()
            for index in declared where index.fields.count > orders.count && serves(index, prefix: index.fields.count - orders.count) {
                covered.formUnion(index.fields.prefix(index.fields.count - orders.count).map(\.path))
            }
            if covered.isSuperset(of: equalities.map(\.path)) { return nil }
        }
        return .composite(wanted)
    }

    /// The filter's disjunctive normal form: each conjunction's comparisons (one, empty, for no filter).
    static func disjunctions(of filter: QueryFilter?) -> [[QueryFilter]] {
        guard let filter else { return [[]] }
        switch filter {
        case .field, .unary: return [[filter]]
        case .composite(.or, let parts): return parts.flatMap { disjunctions(of: $0) }
        case .composite(.and, let parts):
            return parts.reduce([[]]) { product, part in
                disjunctions(of: part).flatMap { right in product.map { $0 + right } }
            }
        }
    }
}

extension CompositeIndex {
    /// The console link's `create_composite` value: the `google.firestore.admin.v1.Index` it creates
    /// (name, query scope, fields with the trailing `__name__` when the last order is descending),
    /// serialized and base64url-encoded without padding, as production's links carry it.
    func linkToken(in database: DatabaseName) -> String {
        var fields = self.fields
        if let last = fields.last, last.kind == .descending { fields.append(IndexField(path: .documentName, kind: .descending)) }
        var message = ProtoBytesWriter()
        message.write(1, string: "\(database.description)/collectionGroups/\(collectionGroup)/indexes/_")
        message.write(2, varint: scope == .collection ? 1 : 2)
        for field in fields { message.write(3, message: field.proto) }
        return message.base64URL
    }
}

extension SingleFieldIndex {
    /// The console link's `create_exemption` value: the `google.firestore.admin.v1.Field` whose index config
    /// holds this index, serialized as `linkToken(in:)` is.
    func linkToken(for path: FieldPath, in group: String, database: DatabaseName) -> String {
        var index = ProtoBytesWriter()
        index.write(2, varint: scope == .collection ? 1 : 2)
        index.write(3, message: IndexField(path: path, kind: kind).proto)
        var config = ProtoBytesWriter()
        config.write(1, message: index)
        var field = ProtoBytesWriter()
        field.write(1, string: "\(database.description)/collectionGroups/\(group)/fields/\(path)")
        field.write(2, message: config)
        return field.base64URL
    }
}

extension IndexField {
    /// `Index.IndexField`: `field_path`, then `order` (1 ascending, 2 descending) or `array_config` (1 contains).
    fileprivate var proto: ProtoBytesWriter {
        var bytes = ProtoBytesWriter()
        bytes.write(1, string: path.description)
        switch kind {
        case .ascending: bytes.write(2, varint: 1)
        case .descending: bytes.write(2, varint: 2)
        case .contains: bytes.write(3, varint: 1)
        }
        return bytes
    }
}

extension ProtoBytesWriter {
    /// The message's bytes in base64url without padding, as console links carry them.
    var base64URL: String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
