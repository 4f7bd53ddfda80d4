import EmulatorCore

/// How a query reads an index: the index's key (the query's equality fields, then the fields it orders by
/// while their direction holds), the values that fix the key's leading fields (one list per range: an `in`
/// or array-contains-any filter reads a range for each of its values), and bounds on the next field from
/// the filters and the start cursor. The query's own filter, cursors, offset and limit then decide, so the
/// results are a scan's.
struct IndexPlan {
    /// The index read.
    private(set) var key: IndexKey
    /// How many leading fields of the key the equality filters fix.
    let prefixLength: Int
    /// The fixed values of each range read, in turn.
    let prefixes: [[FirestoreValue]]
    /// Whether ranges are read backwards (the query orders descending).
    let descending: Bool
    /// Whether the candidates come in the query's order (else the query sorts them).
    let inOrder: Bool
    /// Whether a document can be in more than one range (array-contains-any).
    let deduplicates: Bool
    /// The comparisons of the query's top-level AND that the fixed values do not enforce.
    let unenforced: [QueryFilter]
    /// Whether the query has an OR (its disjunctions are not bounded here).
    private let hasDisjunction: Bool
    /// Where the start cursor puts the field after the fixed ones (in the read's direction), if anywhere.
    private let start: FirestoreValue?

    /// The plan for `query`, or `nil` when no index helps: it has no equality filter and orders by the
    /// document name only (a name-order scan serves it).
    init?(_ query: StructuredQuery) {
        let conjunction = Self.conjunction(of: query.filter)
        var fixed: [(field: IndexedField, value: FirestoreValue)] = []
        var unenforced: [QueryFilter] = []
        for leaf in conjunction {
            guard case .field(let path, let op, let value) = leaf, path != .documentName, op == .equal || op == .arrayContains,
                !fixed.contains(where: { $0.field.path == path && $0.field.elements == (op == .arrayContains) })
            else {
                unenforced.append(leaf)
                continue
            }
            fixed.append((IndexedField(path: path, elements: op == .arrayContains), value))
        }
        // At most one filter of several values (an `in` on a field no equality fixes, or array-contains-any).
        var several: (field: IndexedField, values: [FirestoreValue])?
        unenforced.removeAll { leaf in
            guard several == nil, case .field(let path, let op, .array(let values)) = leaf, path != .documentName,
                op == .in || op == .arrayContainsAny
            else { return false }
            let field = IndexedField(path: path, elements: op == .arrayContainsAny)
            guard !fixed.contains(where: { $0.field == field }) else { return false }
            several = (field, FirestoreValue.distinct(values))
            return true
        }
        // One order for every query of a shape, so they share its index.
        fixed.sort { ($0.field.path, $0.field.elements ? 1 : 0) < ($1.field.path, $1.field.elements ? 1 : 0) }
        let constant = Set(fixed.filter { !$0.field.elements }.map(\.field.path))
        let order = query.normalizedOrder
        let descending = order.first { $0.field == .documentName }?.descending ?? false
        var ordered: [IndexedField] = []
        var direction: Bool?
        var coversOrder = true
        for each in order {
            if each.field == .documentName { break }
            if constant.contains(each.field) { continue }
            if each.field == several?.field.path || (direction != nil && direction != each.descending) {
                coversOrder = false
                break
            }
            direction = each.descending
            ordered.append(IndexedField(path: each.field))
        }
        if order.firstIndex(where: { $0.field == .documentName }) != order.count - 1 { coversOrder = false }
        let fields = fixed.map(\.field) + (several.map { [$0.field] } ?? []) + ordered
        guard !fields.isEmpty else { return nil }
        key = IndexKey(fields)
        prefixLength = fixed.count + (several == nil ? 0 : 1)
        let values = fixed.map(\.value)
        prefixes = several.map { several in several.values.map { values + [$0] } } ?? [values]
        self.descending = direction ?? descending
        inOrder = coversOrder && prefixes.count == 1 && (direction ?? descending) == descending
        deduplicates = several?.field.elements == true
        self.unenforced = unenforced
        hasDisjunction = query.filter.map(Self.hasDisjunction) ?? false
        // The cursor's first value is the first order's: a bound when that order is the ranged field's.
        if let first = ordered.first, order.first?.field == first.path, order.first?.descending == self.descending {
            start = query.startAt?.values.first
        } else {
            start = nil
        }
    }

    /// Plans for a query with an OR: one for each conjunction of its filter's disjunctive normal form, in
    /// the whole query's normalized order (so plans that read in that order can be merged), without its
    /// cursors. `nil` for a query without an OR, or when a conjunction would read a whole index (neither
    /// fixes a field nor bounds one).
    static func disjunctions(of query: StructuredQuery) -> [IndexPlan]? {
        guard let filter = query.filter, hasDisjunction(filter) else { return nil }
        let order = query.normalizedOrder
        var plans: [IndexPlan] = []
        for conjunction in StructuredQuery.disjunctions(of: filter) {
            var part = query
            part.filter = .composite(.and, conjunction)
            part.orderBy = order
            part.startAt = nil
            part.endAt = nil
            guard let plan = IndexPlan(part), plan.isSelective else { return nil }
            plans.append(plan)
        }
        return plans
    }

    /// The comparisons that bound an index range of their field.
    private static let bounding: Set<FieldOperator> = [.equal, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual]

    /// Whether the plan reads less than its whole index: equalities fix fields, or a comparison bounds the
    /// next field.
    var isSelective: Bool {
        guard prefixLength == 0 else { return true }
        return unenforced.contains { leaf in
            guard case .field(let path, let op, _) = leaf else { return false }
            return path == key.fields[0].path && Self.bounding.contains(op)
        }
    }

    /// The comparisons left to check on each entry's field after the fixed ones when they and the fixed
    /// values decide the matches exactly (every unenforced comparison is `==`, `<`, `<=`, `>` or `>=` on
    /// that field, and there is no OR); `nil` otherwise.
    var exactRangeComparisons: [(op: FieldOperator, operand: FirestoreValue)]? {
        // An index holds NaN equal to NaN, a filter does not.
        guard !hasDisjunction, !prefixes.contains(where: { $0.contains(where: Self.holdsNaN) }) else { return nil }
        var leaves: [(op: FieldOperator, operand: FirestoreValue)] = []
        for leaf in unenforced {
            guard case .field(let path, let op, let operand) = leaf, Self.bounding.contains(op), prefixLength < key.fields.count,
                key.fields[prefixLength] == IndexedField(path: path)
            else { return nil }
            leaves.append((op, operand))
        }
        return leaves
    }

    /// The ids of the documents in `index` (this plan's key) whose leading fields are `prefix`, in the
    /// read's direction (see `entries(of:prefix:)`).
    func ids(in index: FieldIndex, prefix: [FirestoreValue]) -> AnySequence<String> {
        switch index {
        case .single(let entries): AnySequence(self.entries(of: entries, prefix: prefix).lazy.map(\.id))
        case .composite(let entries): AnySequence(self.entries(of: entries, prefix: prefix).lazy.map(\.id))
        }
    }

    /// Calls `body` for each entry of `index` (this plan's key) whose leading fields are `prefix` and whose
    /// value of the field after them satisfies every comparison of `leaves`, in the read's direction, until
    /// it returns false. `body` gets the entry's values by their positions in the key.
    func visit(
        _ index: FieldIndex, prefix: [FirestoreValue], where leaves: [(op: FieldOperator, operand: FirestoreValue)],
        _ body: (_ value: (Int) -> FirestoreValue) -> Bool
    ) {
        func visit(_ entries: some Sequence<some FieldIndexEntry>) {
            let (position, fieldCount) = (prefixLength, key.fields.count)
            for entry in entries {
                if !leaves.isEmpty {
                    let value = entry.component(position, of: fieldCount)
                    guard leaves.allSatisfy({ $0.op.matches(value, operand: $0.operand) }) else { continue }
                }
                guard body({ entry.component($0, of: fieldCount) }) else { return }
            }
        }
        switch index {
        case .single(let entries): visit(self.entries(of: entries, prefix: prefix))
        case .composite(let entries): visit(self.entries(of: entries, prefix: prefix))
        }
    }

    /// The plan reading `query`'s matches with their values of `fields` (sums' and averages' fields, in
    /// turn) off an index, and the comparisons left for each entry (see `exactRangeComparisons`): the index
    /// of the query's key followed by those of `fields` it lacks, whose entries are exactly the matches that
    /// have every one of `fields` (the documents an aggregation of them considers, as production's index
    /// scan does). `nil` when the query's ranges do not hold exactly its matches, when a document can be in
    /// several, when it has a limit, a cursor or an offset (which pick matches in the query's order, not the
    /// index's), or a projection (the query's aggregations see its projected documents).
    static func totaling(_ fields: [FieldPath], of query: StructuredQuery) -> (plan: IndexPlan, leaves: [(op: FieldOperator, operand: FirestoreValue)])? {
        guard !fields.isEmpty, !query.allDescendants, query.findNearest == nil, query.startAt == nil, query.endAt == nil,
            query.offset == 0, query.limit == nil, query.projection == nil
        else { return nil }
        let added = fields.reduce(into: [IndexedField]()) { added, field in
            if !added.contains(IndexedField(path: field)) { added.append(IndexedField(path: field)) }
        }
        guard let plan = IndexPlan(query) else {
            // No equality and the name order: without a filter, the whole index of the fields.
            guard query.filter == nil, query.orderBy.allSatisfy({ $0.field == .documentName }) else { return nil }
            return (IndexPlan(reading: IndexKey(added)), [])
        }
        guard !plan.deduplicates, let leaves = plan.exactRangeComparisons, plan.holdsOrder(of: query) else { return nil }
        var extended = plan
        extended.key = IndexKey(plan.key.fields + added.filter { !plan.key.fields.contains($0) })
        return (extended, leaves)
    }

    /// Whether every field `query` orders by (but the name) is a field of the key.
    func holdsOrder(of query: StructuredQuery) -> Bool {
        query.orderBy.allSatisfy { order in order.field == .documentName || key.fields.contains { $0.path == order.field && !$0.elements } }
    }

    /// A plan reading all of the index of `key`, in its order.
    private init(reading key: IndexKey) {
        self.key = key
        prefixLength = 0
        prefixes = [[]]
        descending = false
        inOrder = false
        deduplicates = false
        unenforced = []
        hasDisjunction = false
        start = nil
    }

    /// The entries of `index` (this plan's key) whose leading fields are `prefix`, in the read's direction,
    /// from the bound the filters (and the start cursor) put first on the next field to past the other
    /// bound: a superset of the matches' entries. A range filter matches values of its operand's type only,
    /// so the type of each bound limits the other end too.
    private func entries<Order: ChunkOrder>(of index: SortedChunks<Order>, prefix: [FirestoreValue]) -> AnySequence<Order.Element>
    where Order.Element: FieldIndexEntry {
        let length = prefixLength
        let fieldCount = key.fields.count
        let rangedField = length < fieldCount ? key.fields[length].path : nil
        var lower: FirestoreValue?
        var upper: FirestoreValue?
        func tighten(_ bound: inout FirestoreValue?, _ value: FirestoreValue, keepsGreater: Bool) {
            guard let current = bound else { return bound = value }
            let order = FirestoreValue.compare(value, current)
            if keepsGreater ? order > 0 : order < 0 { bound = value }
        }
        for case .field(let path, let op, let value) in unenforced where path == rangedField {
            switch op {
            case .greaterThan, .greaterThanOrEqual: tighten(&lower, value, keepsGreater: true)
            case .lessThan, .lessThanOrEqual: tighten(&upper, value, keepsGreater: false)
            case .equal:
                tighten(&lower, value, keepsGreater: true)
                tighten(&upper, value, keepsGreater: false)
            default: break
            }
        }
        let types = (lower ?? upper).map { bound in (low: min(bound.typeOrder, (upper ?? bound).typeOrder), high: max(bound.typeOrder, (lower ?? bound).typeOrder)) }
        // The start cursor (in the read's direction) is a bound too, of any type.
        if let start {
            if descending { tighten(&upper, start, keepsGreater: false) } else { tighten(&lower, start, keepsGreater: true) }
        }
        // How an entry's fixed fields compare with `prefix`.
        let prefixOrder = { (entry: Order.Element) -> Int in
            for position in 0..<length {
                let order = FirestoreValue.compare(entry.component(position, of: fieldCount), prefix[position])
                if order != 0 { return order }
            }
            return 0
        }
        let belowStart = { [lower] (entry: Order.Element) -> Bool in
            let order = prefixOrder(entry)
            guard order == 0 else { return order < 0 }
            guard rangedField != nil, lower != nil || types != nil else { return false }
            let value = entry.component(length, of: fieldCount)
            if let types, value.typeOrder < types.low { return true }
            return lower.map { FirestoreValue.compare(value, $0) < 0 } ?? false
        }
        let pastEnd = { [upper] (entry: Order.Element) -> Bool in
            let order = prefixOrder(entry)
            guard order == 0 else { return order > 0 }
            guard rangedField != nil, upper != nil || types != nil else { return false }
            let value = entry.component(length, of: fieldCount)
            if let types, value.typeOrder > types.high { return true }
            return upper.map { FirestoreValue.compare(value, $0) > 0 } ?? false
        }
        return descending
            ? AnySequence(index.reversed(before: { !pastEnd($0) }).lazy.prefix { !belowStart($0) })
            : AnySequence(index.elements(from: belowStart).lazy.prefix { !pastEnd($0) })
    }

    /// The comparisons every match satisfies: the filter's own, or those its top-level AND joins (none for
    /// an OR: its disjunctions each need their own).
    private static func conjunction(of filter: QueryFilter?) -> [QueryFilter] {
        switch filter {
        case nil: return []
        case .field, .unary: return [filter!]
        case .composite(.and, let parts): return parts.flatMap { conjunction(of: $0) }
        case .composite(.or, _): return []
        }
    }

    private static func holdsNaN(_ value: FirestoreValue) -> Bool {
        switch value {
        case .double(let number): number.isNaN
        case .array(let values): values.contains(where: holdsNaN)
        case .map(let fields): fields.values.contains(where: holdsNaN)
        default: false
        }
    }

    private static func hasDisjunction(_ filter: QueryFilter) -> Bool {
        switch filter {
        case .field, .unary: false
        case .composite(.and, let parts): parts.contains(where: hasDisjunction)
        case .composite(.or, _): true
        }
    }
}
