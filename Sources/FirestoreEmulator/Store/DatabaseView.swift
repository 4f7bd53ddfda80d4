import EmulatorCore

/// A consistent view of one database for the duration of one store operation: the state now or at a read
/// time, optionally with a commit's pending writes laid over it. Reads through it are recorded so a
/// transaction can later check nobody changed what it saw.
///
/// Valid only inside the `FirestoreStore` call that hands it out (it reads the state under the store's lock).
struct DatabaseView {
    /// The database's state.
    let state: DatabaseState
    /// The time read at (`nil`: now).
    let readTime: Timestamp?
    /// Pending writes of a commit: what `peek` sees instead of the stored state.
    var overlay: [DocumentPath: Document?] = [:]
    /// Documents read, with the update time seen (for transactions).
    private(set) var reads: [DocumentPath: Timestamp?] = [:]
    /// Queries run, with their results (for transactions).
    private(set) var queries: [(query: StructuredQuery, results: [DocumentPath: Timestamp])] = []

    /// Whether reads are recorded (inside a read-write transaction).
    let records: Bool
    /// The fewest documents a collection holds for a query to build a field index there.
    let indexThreshold: Int

    /// The default `indexThreshold`: every collection, so every query a client sends takes the indexed
    /// plans the whole test suite checks (an index of a small collection costs little).
    static let defaultIndexThreshold = 0

    /// A view of `state` at `readTime`, with `overlay` laid over it; `records` keeps what is read.
    init(
        state: DatabaseState, readTime: Timestamp?, overlay: [DocumentPath: Document?] = [:], records: Bool = false,
        indexThreshold: Int = DatabaseView.defaultIndexThreshold
    ) {
        self.state = state
        self.readTime = readTime
        self.overlay = overlay
        self.records = records
        self.indexThreshold = indexThreshold
    }

    /// The database's name.
    var name: DatabaseName { state.name }

    /// The document at `path` as this view sees it, without recording the read.
    func peek(at path: DocumentPath) -> Document? {
        if let pending = overlay[path] { return pending }
        return state.document(at: path, time: readTime)
    }

    /// The document at `path`, recording the read.
    mutating func document(at path: DocumentPath) -> Document? {
        let document = peek(at: path)
        if records { reads[path] = document?.updateTime }
        return document
    }

    /// The results of `query` (before projection is undone: projected documents keep their times),
    /// recording them.
    mutating func run(_ query: StructuredQuery) -> [Document] {
        let results: [Document]
        let state = self.state
        let readTime = self.readTime
        if query.allDescendants {
            let groupEquality = readTime == nil && query.findNearest == nil ? Self.equality(in: query.filter) : nil
            let threshold = indexThreshold
            let candidates = state.collectionGroup(query.collectionID, under: query.parent).lazy.flatMap { path in
                // With an equality filter, each collection's documents equal to its value only.
                if let (field, values) = groupEquality, let index = state.fieldIndex(field, in: path, minimumCount: threshold) {
                    let entries = state.collections[path]?.entries ?? [:]
                    return AnySequence(values.lazy.flatMap { Self.equal($0, in: index) }.compactMap { entries[$0.id]?.current })
                }
                return AnySequence(state.unorderedDocuments(in: path, at: readTime))
            }
            results = query.run(over: candidates, in: name, candidatesInOrder: false)
        } else if readTime == nil, query.findNearest == nil, let (candidates, inOrder) = indexedCandidates(of: query) {
            results = query.run(over: candidates, in: name, candidatesInOrder: inOrder)
        } else if query.normalizedOrder != [QueryOrder(field: .documentName)] {
            // The query sorts its matches anyway: scan in storage order.
            let candidates = state.unorderedDocuments(in: query.parent.appending(query.collectionID), at: readTime)
            results = query.run(over: candidates, in: name, candidatesInOrder: false)
        } else {
            let candidates = state.documents(in: query.parent.appending(query.collectionID), at: readTime)
            results = query.run(over: candidates, in: name, candidatesInOrder: true)
        }
        if records {
            var seen: [DocumentPath: Timestamp] = [:]
            for document in results { seen[document.path] = document.updateTime }
            queries.append((query, seen))
        }
        return results
    }
}

extension DatabaseView {
    /// Candidates for `query` (a superset of its matches) from a field index, and whether they come in the
    /// query's order; `nil` when no index helps (then the collection is scanned). With an equality filter
    /// the documents equal to its value are the candidates (in name order, which is the query's when it
    /// orders by name only); otherwise, for a query ordered by one field (an inequality orders by its field),
    /// the field's index read in the query's direction from where the filters and the start cursor allow,
    /// stopping past the filters' other bound. Either way the query's own filter, cursors, offset and limit
    /// then decide, so the results are a scan's.
    fileprivate func indexedCandidates(of query: StructuredQuery) -> (candidates: AnySequence<Document>, inOrder: Bool)? {
        let collectionPath = query.parent.appending(query.collectionID)
        let conjunction = Self.conjunction(of: query.filter)
        let order = query.normalizedOrder
        let state = self.state
        // The collection looked up once: each candidate then costs one lookup by id.
        let entries = state.collections[collectionPath]?.entries ?? [:]
        let document = { (entry: IndexEntry) in entries[entry.id]?.current }
        if let (field, values) = Self.equality(in: query.filter) {
            guard let index = state.fieldIndex(field, in: collectionPath, minimumCount: indexThreshold) else { return nil }
            // One value's range is in name order (read backwards for a descending one); an `in` list's ranges
            // come one after another, and the query sorts them.
            let descending = order == [QueryOrder(field: .documentName, descending: true)]
            let candidates = values.lazy.flatMap { Self.equal($0, in: index, descending: descending) }.compactMap(document)
            return (AnySequence(candidates), values.count == 1 && (descending || order == [QueryOrder(field: .documentName)]))
        }
        guard order.count == 2, order[0].field != .documentName, order[1] == QueryOrder(field: .documentName, descending: order[0].descending),
            let index = state.fieldIndex(IndexedField(path: order[0].field), in: collectionPath, minimumCount: indexThreshold)
        else { return nil }
        let ordered = Self.range(
            of: index, field: order[0].field, descending: order[0].descending, conjunction: conjunction, start: query.startAt?.values.first)
        return (AnySequence(ordered.lazy.compactMap(document)), true)
    }

    /// How many documents match `query`, counted without reading a document when that can be done: the
    /// collection's own count for a query with no filter, else a field index that covers the query (every
    /// comparison of its filter is on one field: `==`, `<`, `<=`, `>`, `>=`, and it orders by nothing else).
    /// `nil` otherwise, for a query with a cursor or an offset, and inside a transaction (which must record
    /// the documents it read).
    func indexedCount(of query: StructuredQuery) -> Int? {
        guard !records, readTime == nil, !query.allDescendants, query.findNearest == nil, query.startAt == nil,
            query.endAt == nil, query.offset == 0
        else { return nil }
        if query.filter == nil, query.orderBy.allSatisfy({ $0.field == .documentName }) {
            return min(state.existingCount(in: query.parent.appending(query.collectionID)), query.limit ?? .max)
        }
        let conjunction = Self.conjunction(of: query.filter)
        guard case .field(let field, _, _)? = conjunction.first, field != .documentName else { return nil }
        let ranged: Set<FieldOperator> = [.equal, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual]
        var leaves: [(FieldOperator, FirestoreValue)] = []
        for leaf in conjunction {
            guard case .field(field, let op, let operand) = leaf, ranged.contains(op) else { return nil }
            leaves.append((op, operand))
        }
        guard query.orderBy.allSatisfy({ $0.field == field || $0.field == .documentName }),
            let index = state.fieldIndex(IndexedField(path: field), in: query.parent.appending(query.collectionID), minimumCount: indexThreshold)
        else { return nil }
        let limit = query.limit ?? .max
        var count = 0
        for entry in Self.range(of: index, field: field, descending: false, conjunction: conjunction, start: nil) where count < limit {
            if leaves.allSatisfy({ $0.0.matches(entry.value, operand: $0.1) }) { count += 1 }
        }
        return count
    }

    /// The entries of `field`'s index in the query's direction, from the bound the filters (and the start
    /// cursor's first value) put first to past the other bound: a superset of the matches' entries. A range
    /// filter matches values of its operand's type only, so the type of each bound limits the other end too.
    private static func range(
        of index: FieldIndex, field: FieldPath, descending: Bool, conjunction: [QueryFilter], start: FirestoreValue?
    ) -> AnySequence<IndexEntry> {
        var lower: FirestoreValue?
        var upper: FirestoreValue?
        func tighten(_ bound: inout FirestoreValue?, _ value: FirestoreValue, keepsGreater: Bool) {
            guard let current = bound else { return bound = value }
            let order = FirestoreValue.compare(value, current)
            if keepsGreater ? order > 0 : order < 0 { bound = value }
        }
        for case .field(let path, let op, let value) in conjunction where path == field {
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
        // The start cursor (in the query's direction) is a bound too, of any type.
        if let start {
            if descending { tighten(&upper, start, keepsGreater: false) } else { tighten(&lower, start, keepsGreater: true) }
        }
        let belowStart = { [lower] (entry: IndexEntry) -> Bool in
            if let types, entry.value.typeOrder < types.low { return true }
            return lower.map { FirestoreValue.compare(entry.value, $0) < 0 } ?? false
        }
        let pastEnd = { [upper] (entry: IndexEntry) -> Bool in
            if let types, entry.value.typeOrder > types.high { return true }
            return upper.map { FirestoreValue.compare(entry.value, $0) > 0 } ?? false
        }
        return descending
            ? AnySequence(index.reversed(before: { !pastEnd($0) }).lazy.prefix { !belowStart($0) })
            : AnySequence(index.elements(from: belowStart).lazy.prefix { !pastEnd($0) })
    }

    /// The first equality filter on a field (not `__name__`) that every match satisfies, else the first
    /// array-contains filter, else the first `in` filter: the index (a field's values, or its arrays'
    /// elements) and the values to read (an `in` list's distinct values: a document has one value, so it is
    /// in one of their ranges at most).
    private static func equality(in filter: QueryFilter?) -> (IndexedField, [FirestoreValue])? {
        let comparisons = conjunction(of: filter)
        for case .field(let field, .equal, let value) in comparisons where field != .documentName {
            return (IndexedField(path: field), [value])
        }
        for case .field(let field, .arrayContains, let value) in comparisons where field != .documentName {
            return (IndexedField(path: field, elements: true), [value])
        }
        for case .field(let field, .in, .array(let values)) in comparisons where field != .documentName {
            return (IndexedField(path: field), FirestoreValue.distinct(values))
        }
        return nil
    }

    /// The entries of `index` whose value equals `value`, in name order (reversed when `descending`).
    private static func equal(_ value: FirestoreValue, in index: FieldIndex, descending: Bool = false) -> AnySequence<IndexEntry> {
        let entries = descending
            ? index.reversed(before: { FirestoreValue.compare($0.value, value) <= 0 })
            : index.elements(from: { FirestoreValue.compare($0.value, value) < 0 })
        return AnySequence(entries.lazy.prefix { FirestoreValue.compare($0.value, value) == 0 })
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
}
