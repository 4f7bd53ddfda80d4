import EmulatorCore
import HeapModule

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
    let overlay: PendingDocuments
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
        state: DatabaseState, readTime: Timestamp?, overlay: PendingDocuments = PendingDocuments(), records: Bool = false,
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
            let plan = readTime == nil && query.findNearest == nil ? IndexPlan(query) : nil
            let paths = state.collectionGroup(query.collectionID, under: query.parent)
            let threshold = indexThreshold
            if let plan, plan.inOrder, let indexes = Self.indexes(plan.key, in: paths, of: state, minimumCount: threshold) {
                // Each collection's range in the query's order, merged: a limit stops the read early.
                let parts = zip(paths, indexes).map { path, index in Self.candidates(plan, in: index, of: state.collections[path]?.entries ?? [:]) }
                results = query.run(over: Self.merged(parts, along: query.normalizedOrder, deduplicating: false), in: name, candidatesInOrder: true)
            } else {
                // With equality filters, each collection's documents equal to their values only.
                let equalities = plan.flatMap { $0.prefixLength > 0 ? $0 : nil }
                let candidates = paths.lazy.flatMap { path in
                    if let equalities, let index = state.fieldIndex(equalities.key, in: path, minimumCount: threshold) {
                        return AnySequence(Self.candidates(equalities, in: index, of: state.collections[path]?.entries ?? [:]))
                    }
                    return AnySequence(state.unorderedDocuments(in: path, at: readTime))
                }
                results = query.run(over: candidates, in: name, candidatesInOrder: false)
            }
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
    /// Candidates for `query` (a superset of its matches, each once) from the indexes of its plan (see
    /// `IndexPlan`), and whether they come in the query's order; `nil` when no index helps (the collection
    /// is scanned). An OR query whose every disjunction is selective reads each one's ranges: merged in its
    /// order when each comes in it, else one after another.
    fileprivate func indexedCandidates(of query: StructuredQuery) -> (candidates: AnySequence<Document>, inOrder: Bool)? {
        let collectionPath = query.parent.appending(query.collectionID)
        let entries = state.collections[collectionPath]?.entries ?? [:]
        if let plans = IndexPlan.disjunctions(of: query) {
            var parts: [AnySequence<Document>] = []
            for plan in plans {
                guard let index = state.fieldIndex(plan.key, in: collectionPath, minimumCount: indexThreshold) else { return nil }
                parts.append(Self.candidates(plan, in: index, of: entries))
            }
            guard plans.allSatisfy(\.inOrder) else { return (Self.unique(parts.joined()), false) }
            return (Self.merged(parts, along: query.normalizedOrder, deduplicating: true), true)
        }
        guard let plan = IndexPlan(query), let index = state.fieldIndex(plan.key, in: collectionPath, minimumCount: indexThreshold)
        else { return nil }
        return (Self.candidates(plan, in: index, of: entries), plan.inOrder)
    }

    /// The index of `key` of each collection at `paths` (built where missing), or `nil` when one is too small
    /// to have one.
    private static func indexes(_ key: IndexKey, in paths: [DocumentPath], of state: DatabaseState, minimumCount: Int) -> [FieldIndex]? {
        var indexes: [FieldIndex] = []
        for path in paths {
            guard let index = state.fieldIndex(key, in: path, minimumCount: minimumCount) else { return nil }
            indexes.append(index)
        }
        return indexes
    }

    /// The candidates for `plan`'s query (a superset of its matches, each once) from `index`, the index of
    /// its key in a collection whose documents are `entries`: each range's documents in turn.
    fileprivate static func candidates(_ plan: IndexPlan, in index: FieldIndex, of entries: [String: DocumentEntry]) -> AnySequence<Document> {
        let documents = plan.prefixes.lazy.flatMap { plan.ids(in: index, prefix: $0) }.compactMap { entries[$0]?.current }
        // An array-contains-any list: a document whose array holds several of its values is in several ranges.
        return plan.deduplicates ? unique(documents) : AnySequence(documents)
    }

    /// `parts`, each in `order`, merged into one sequence in that order: the ranges of an OR's disjunctions
    /// (`deduplicating` repeats of an id: a document can match several), or of a group's collections. The
    /// parts' heads are kept in a heap, so each document costs O(log parts) however many there are.
    private static func merged(_ parts: [AnySequence<Document>], along order: [QueryOrder], deduplicating: Bool) -> AnySequence<Document> {
        let merged = AnySequence { () -> AnyIterator<Document> in
            let iterators = parts.map { $0.makeIterator() }
            var heads = Heap(iterators.enumerated().compactMap { part, iterator in
                iterator.next().map { MergeHead(document: $0, part: part, order: order) }
            })
            return AnyIterator {
                guard let top = heads.min else { return nil }
                if let next = iterators[top.part].next() {
                    heads.replaceMin(with: MergeHead(document: next, part: top.part, order: order))
                } else {
                    heads.removeMin()
                }
                return top.document
            }
        }
        return deduplicating ? unique(merged) : merged
    }

    /// `documents` without repeats (of one collection: the first of each id).
    private static func unique(_ documents: some Sequence<Document>) -> AnySequence<Document> {
        AnySequence { () -> AnyIterator<Document> in
            var seen = Set<String>()
            var iterator = documents.makeIterator()
            return AnyIterator {
                while let document = iterator.next() {
                    if seen.insert(document.path.lastSegment ?? "").inserted { return document }
                }
                return nil
            }
        }
    }

    /// How many documents match `query`, counted without reading a document when that can be done: the
    /// collection's own count for a query with no filter, else an index whose ranges hold exactly the
    /// matches (equality, array-contains and `in` filters fix its leading fields, and every other comparison
    /// is `==`, `<`, `<=`, `>` or `>=` on the field after them; it orders by nothing the index lacks).
    /// `nil` otherwise, for a query with a cursor or an offset, and inside a transaction (which must record
    /// the documents it read).
    func indexedCount(of query: StructuredQuery) -> Int? {
        guard !records, readTime == nil, !query.allDescendants, query.findNearest == nil, query.startAt == nil,
            query.endAt == nil, query.offset == 0
        else { return nil }
        let collectionPath = query.parent.appending(query.collectionID)
        if query.filter == nil, query.orderBy.allSatisfy({ $0.field == .documentName }) {
            return min(state.existingCount(in: collectionPath), query.limit ?? .max)
        }
        guard let plan = IndexPlan(query), !plan.deduplicates, let leaves = plan.exactRangeComparisons, plan.holdsOrder(of: query),
            let index = state.fieldIndex(plan.key, in: collectionPath, minimumCount: indexThreshold)
        else { return nil }
        let limit = query.limit ?? .max
        var count = 0
        for prefix in plan.prefixes where count < limit {
            plan.visit(index, prefix: prefix, where: leaves) { _ in
                count += 1
                return count < limit
            }
        }
        return count
    }

    /// The results of `aggregations` over `query`'s matches, computed without reading a document when that
    /// can be done: counts alone as `indexedCount(of:)` counts; with sums and averages, from the entries of
    /// the index `IndexPlan.totaling(_:of:)` plans (production computes them by such an index scan too).
    /// `nil` otherwise, inside a transaction, and when a total has a double: doubles are added in the
    /// query's order (see `NumericTotal`), which an index's need not be.
    func indexedAggregates(_ aggregations: [Aggregation], of query: StructuredQuery) -> [String: FirestoreValue]? {
        var fields: [FieldPath] = []
        for case let field? in aggregations.map(\.field) where !fields.contains(field) { fields.append(field) }
        guard !fields.isEmpty else { return indexedCount(of: query).map { Aggregation.evaluate(aggregations, count: $0, totals: [:]) } }
        guard !records, readTime == nil, let (plan, leaves) = IndexPlan.totaling(fields, of: query),
            let index = state.fieldIndex(plan.key, in: query.parent.appending(query.collectionID), minimumCount: indexThreshold)
        else { return nil }
        let positions = fields.map { field in plan.key.fields.firstIndex(of: IndexedField(path: field)) ?? 0 }
        var totals = [NumericTotal](repeating: NumericTotal(), count: fields.count)
        var count = 0
        for prefix in plan.prefixes {
            plan.visit(index, prefix: prefix, where: leaves) { value in
                count += 1
                for (total, position) in positions.enumerated() { totals[total].add(value(position)) }
                return true
            }
        }
        guard totals.allSatisfy(\.isOrderFree) else { return nil }
        return Aggregation.evaluate(aggregations, count: count, totals: Dictionary(uniqueKeysWithValues: zip(fields, totals)))
    }
}

/// The next document of one of several sequences being merged, ordered by a query's normalized order (ties:
/// the earlier sequence first).
private struct MergeHead: Comparable {
    let document: Document
    /// Which sequence it comes from.
    let part: Int
    /// The order.
    let order: [QueryOrder]

    static func < (a: MergeHead, b: MergeHead) -> Bool {
        if StructuredQuery.precedes(a.document, b.document, along: a.order) { return true }
        if StructuredQuery.precedes(b.document, a.document, along: a.order) { return false }
        return a.part < b.part
    }

    static func == (a: MergeHead, b: MergeHead) -> Bool { !(a < b) && !(b < a) }
}
