/// A query prepared to run over many documents: its normalized orders, its filter with `__name__` operands
/// parsed, and its cursors resolved against the database, so that evaluating a document parses nothing and
/// builds no names.
struct QueryPlan: Sendable {
    /// What a document (or a cursor) holds at one position of the normalized order.
    enum Key: Sendable {
        /// The document lacks the field (such a document never matches the query).
        case missing
        /// A field's value.
        case value(FirestoreValue)
        /// A document's path, at a `__name__` position.
        case name(DocumentPath)
        /// A cursor's `__name__` value that no document of the database can equal (not a reference, or one
        /// into another database): every document name compares to it as this, -1 or 1.
        case outside(Int)

        /// What `document` holds at `field`.
        init(of document: Document, at field: FieldPath) {
            if field == .documentName {
                self = .name(document.path)
            } else if let value = FirestoreValue.value(at: field, in: document.fields) {
                self = .value(value)
            } else {
                self = .missing
            }
        }

        /// -1, 0 or 1 in ascending order; a missing field sorts first.
        static func compare(_ a: Key, _ b: Key) -> Int {
            switch (a, b) {
            case (.value(let x), .value(let y)): return FirestoreValue.compare(x, y)
            case (.name(let x), .name(let y)): return x.compare(to: y)
            case (.name, .outside(let order)): return order
            case (.outside(let order), .name): return -order
            case (.missing, .missing): return 0
            case (.missing, _): return -1
            case (_, .missing): return 1
            default:
                // A position holds field values or names, never both, and `outside` only faces names.
                return 0
            }
        }
    }

    /// A `start_at` / `end_at` cursor with its values resolved.
    struct Bound: Sendable {
        /// One key per order, for a prefix of the normalized order.
        var keys: [Key]
        /// Whether the position is just before the documents equal to `keys`.
        var before: Bool
    }

    /// The database the query runs in (names for `__name__` filters that could not be resolved).
    let database: DatabaseName
    /// The normalized order.
    let order: [QueryOrder]
    /// The prepared `where` filter.
    let filter: Filter?
    /// The ordered fields other than `__name__`: a matching document has every one of them.
    let orderedFields: [FieldPath]
    /// The resolved `start_at`.
    let start: Bound?
    /// The resolved `end_at`.
    let end: Bound?

    /// Prepares `query` to run in `database`.
    init(_ query: StructuredQuery, in database: DatabaseName) {
        let order = query.normalizedOrder
        self.database = database
        self.order = order
        filter = query.filter.map { Filter($0, in: database) }
        orderedFields = order.map(\.field).filter { $0 != .documentName }
        start = query.startAt.map { Self.bound($0, order: order, in: database) }
        end = query.endAt.map { Self.bound($0, order: order, in: database) }
    }

    /// Whether `document` has every ordered field and satisfies the filter (cursors aside).
    func matches(_ document: Document) -> Bool {
        for field in orderedFields where FirestoreValue.value(at: field, in: document.fields) == nil { return false }
        return filter?.matches(document, in: database) ?? true
    }

    /// Whether `document` lies between the cursors.
    func isWithinBounds(_ document: Document) -> Bool {
        isAfterStart(document) && isBeforeEnd(document)
    }

    /// Whether `document` comes after the start cursor (or at it, for `before`).
    func isAfterStart(_ document: Document) -> Bool {
        guard let start else { return true }
        let result = compare(document, to: start.keys)
        return start.before ? result >= 0 : result > 0
    }

    /// Whether `document` comes before the end cursor (or at it, unless `before`).
    func isBeforeEnd(_ document: Document) -> Bool {
        guard let end else { return true }
        let result = compare(document, to: end.keys)
        return end.before ? result < 0 : result <= 0
    }

    /// The document's keys along the whole order.
    func keys(of document: Document) -> [Key] {
        order.map { Key(of: document, at: $0.field) }
    }

    /// Compares `document` with a position (keys for a prefix of the order): -1, 0 or 1 in query order.
    func compare(_ document: Document, to keys: [Key]) -> Int {
        Self.compare(along: order, count: keys.count) { Key.compare(Key(of: document, at: order[$0].field), keys[$0]) }
    }

    /// Compares two documents' keys: -1, 0 or 1 in query order.
    func compare(_ a: [Key], _ b: [Key]) -> Int {
        Self.compare(along: order, count: min(a.count, b.count)) { Key.compare(a[$0], b[$0]) }
    }

    /// Combines ascending comparisons position by position, flipping descending ones; the first non-zero wins.
    static func compare(along order: [QueryOrder], count: Int, _ ascending: (Int) -> Int) -> Int {
        for index in 0..<count {
            let result = ascending(index)
            if result != 0 { return order[index].descending ? -result : result }
        }
        return 0
    }

    /// Resolves a cursor's values against `order`.
    private static func bound(_ cursor: QueryCursor, order: [QueryOrder], in database: DatabaseName) -> Bound {
        let keys = zip(cursor.values, order).map { value, order in
            order.field == .documentName ? nameKey(value, in: database) : Key.value(value)
        }
        return Bound(keys: keys, before: cursor.before)
    }

    /// A cursor's `__name__` value: the path of a reference into `database`, else its fixed place relative
    /// to every document name of the database (found by comparing one such name with it).
    private static func nameKey(_ value: FirestoreValue, in database: DatabaseName) -> Key {
        if let path = Filter.path(of: value, in: database) { return .name(path) }
        let anyDocument = FirestoreValue.reference(database.documentsRoot + "/_/_")
        return .outside(FirestoreValue.compare(anyDocument, value))
    }
}
