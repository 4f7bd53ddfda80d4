import EmulatorCore

/// What the entries of every field index have: the document's id, and its values of the index's fields.
protocol FieldIndexEntry: Sendable {
    /// The document's id in its collection.
    var id: String { get }
    /// The entry's value of the field at `position` of its index's key, which has `count` fields.
    func component(_ position: Int, of count: Int) -> FirestoreValue
    /// -1, 0 or 1 as the values of `a` and `b` compare in Firestore's value order (field by field).
    static func compareValues(_ a: Self, _ b: Self) -> Int
}

/// One entry of a single-field index: a document's value of the field (or one element of its array, for
/// array-contains), and the document's id.
struct IndexEntry: FieldIndexEntry {
    /// `value.orderPrefix`: most comparisons of an index search read only this.
    var prefix: UInt64
    /// The field's value.
    var value: FirestoreValue
    /// The document's id in its collection.
    var id: String

    /// The entry of `value` for document `id`.
    init(value: FirestoreValue, id: String) {
        prefix = value.orderPrefix
        self.value = value
        self.id = id
    }

    func component(_ position: Int, of count: Int) -> FirestoreValue { value }

    /// By the prefixes when those differ.
    @inline(__always) static func compareValues(_ a: IndexEntry, _ b: IndexEntry) -> Int {
        if a.prefix != b.prefix { return a.prefix < b.prefix ? -1 : 1 }
        return FirestoreValue.compare(a.value, b.value)
    }
}

/// One entry of a composite index: a document's values of the index's fields, and the document's id. The
/// first value and the rest are held apart, each with its order prefix, so that most comparisons read
/// integers, and an index of two fields (the usual: an equality, then an order) holds both values inline
/// instead of in an array of its own (80 bytes an entry instead of about 140).
struct CompositeIndexEntry: FieldIndexEntry {
    /// `first.orderPrefix`.
    var prefix: UInt64
    /// `rest.orderPrefix`.
    var restPrefix: UInt64
    /// The first field's value.
    var first: FirestoreValue
    /// The second field's value, or for a key of more fields the values of all but the first as an array
    /// (arrays of one length compare as their values in turn).
    var rest: FirestoreValue
    /// The document's id in its collection.
    var id: String

    /// The entry of values `first` and `rest` (see `rest`) for document `id`.
    init(first: FirestoreValue, rest: FirestoreValue, id: String) {
        prefix = first.orderPrefix
        restPrefix = rest.orderPrefix
        self.first = first
        self.rest = rest
        self.id = id
    }

    func component(_ position: Int, of count: Int) -> FirestoreValue {
        if position == 0 { return first }
        guard count > 2, case .array(let values) = rest else { return rest }
        return values[position - 1]
    }

    /// By the prefixes when those differ.
    @inline(__always) static func compareValues(_ a: CompositeIndexEntry, _ b: CompositeIndexEntry) -> Int {
        if a.prefix != b.prefix { return a.prefix < b.prefix ? -1 : 1 }
        let first = FirestoreValue.compare(a.first, b.first)
        if first != 0 { return first }
        if a.restPrefix != b.restPrefix { return a.restPrefix < b.restPrefix ? -1 : 1 }
        return FirestoreValue.compare(a.rest, b.rest)
    }
}

/// Entries by their values (see `FieldIndexEntry.compareValues`), then by document id in name order: the
/// order of a query that orders by the index's fields (ascending; read backwards for descending), ties
/// broken by name as production does.
enum IndexEntryOrder<Entry: FieldIndexEntry>: ChunkOrder {
    /// Entries are larger than ids, and a write inserts one per index: small chunks keep that move short.
    static var chunkLimit: Int { 64 }

    static func precedes(_ a: Entry, _ b: Entry) -> Bool {
        let order = Entry.compareValues(a, b)
        return order != 0 ? order < 0 : DocumentIDOrder.precedes(a.id, b.id)
    }
}

/// An index of one collection: every existing document that has the key's fields, by their values (or, for
/// an array-contains field, once by each distinct element of its array). Built the first time a query can
/// use it, then kept current by every write (see `DatabaseState.fieldIndex(_:in:minimumCount:)`). An index
/// of one field and one of several keep entries of their own shapes.
enum FieldIndex: Sendable {
    /// The index of a key of one field.
    case single(SortedChunks<IndexEntryOrder<IndexEntry>>)
    /// The index of a key of several fields.
    case composite(SortedChunks<IndexEntryOrder<CompositeIndexEntry>>)

    /// How many entries the index holds.
    var count: Int {
        switch self {
        case .single(let entries): entries.count
        case .composite(let entries): entries.count
        }
    }

    /// Keeps the index (of `key`) current when document `id` goes from `before` to `after`.
    mutating func update(key: IndexKey, id: String, from before: Document?, to after: Document?) {
        switch self {
        case .single(var entries):
            // The common case, each value looked up once.
            let field = key.fields[0]
            let oldValue = before.flatMap { FirestoreValue.value(at: field.path, in: $0.fields) }
            let newValue = after.flatMap { FirestoreValue.value(at: field.path, in: $0.fields) }
            if let oldValue, let newValue, FirestoreValue.compare(oldValue, newValue) == 0 { return }
            // Taken out of `self` first, so the chunks are not shared and change in place.
            self = .single(SortedChunks())
            field.forEachEntry(of: oldValue) { entries.remove(IndexEntry(value: $0, id: id)) }
            field.forEachEntry(of: newValue) { entries.insert(IndexEntry(value: $0, id: id)) }
            self = .single(entries)
        case .composite(var entries):
            if let before, let after, key.sameValues(before, after) { return }
            self = .composite(SortedChunks())
            key.forEachEntry(of: before) { entries.remove(CompositeIndexEntry(first: $0, rest: $1, id: id)) }
            key.forEachEntry(of: after) { entries.insert(CompositeIndexEntry(first: $0, rest: $1, id: id)) }
            self = .composite(entries)
        }
    }
}

/// What a field index orders: a field's values, or the elements of its arrays (array-contains).
struct IndexedField: Sendable, Hashable {
    /// The field.
    var path: FieldPath
    /// Whether the entries are the array's elements rather than the value.
    var elements = false

    /// Calls `body` with each value a document's `value` of the field puts in the index: itself, or its
    /// array's distinct elements (none when it is not an array).
    func forEachEntry(of value: FirestoreValue?, _ body: (FirestoreValue) -> Void) {
        guard let value else { return }
        guard elements else { return body(value) }
        guard case .array(let items) = value else { return }
        if items.count == 1 { return body(items[0]) }
        for element in FirestoreValue.distinct(items) { body(element) }
    }
}

/// The fields an index orders by, in turn: one (a single-field index), or several (a composite index: a
/// query's equality fields, then the fields it orders by). All ascending: a query that orders descending
/// reads it backwards.
struct IndexKey: Sendable, Hashable {
    /// The fields, most significant first.
    var fields: [IndexedField]

    /// A single-field index's key.
    init(_ field: IndexedField) { fields = [field] }

    /// A key of `fields`, which are not empty.
    init(_ fields: [IndexedField]) { self.fields = fields }

    /// Calls `body` with the values of each entry `document` puts in the index of this key of several
    /// fields (see `CompositeIndexEntry`): one for each combination of the distinct elements of its
    /// array-contains fields' arrays (none when the document lacks one of the fields).
    func forEachEntry(of document: Document?, _ body: (_ first: FirestoreValue, _ rest: FirestoreValue) -> Void) {
        guard let document else { return }
        // Every field's value, and the distinct elements of each array-contains field's array.
        var components: [FirestoreValue] = []
        components.reserveCapacity(fields.count)
        var elements: [(position: Int, values: [FirestoreValue])] = []
        for field in fields {
            guard let value = FirestoreValue.value(at: field.path, in: document.fields) else { return }
            guard field.elements else {
                components.append(value)
                continue
            }
            guard case .array(let items) = value, !items.isEmpty else { return }
            let distinct = FirestoreValue.distinct(items)
            components.append(distinct[0])
            if distinct.count > 1 { elements.append((components.count - 1, distinct)) }
        }
        func entry() { body(components[0], components.count == 2 ? components[1] : .array(Array(components[1...]))) }
        guard !elements.isEmpty else { return entry() }
        // Each combination, counting through the array-contains fields' elements like an odometer.
        var choices = [Int](repeating: 0, count: elements.count)
        while true {
            entry()
            var digit = elements.count - 1
            while digit >= 0, choices[digit] == elements[digit].values.count - 1 {
                choices[digit] = 0
                components[elements[digit].position] = elements[digit].values[0]
                digit -= 1
            }
            guard digit >= 0 else { return }
            choices[digit] += 1
            components[elements[digit].position] = elements[digit].values[choices[digit]]
        }
    }

    /// Whether `before` and `after` hold the same values of every field of the key.
    func sameValues(_ before: Document, _ after: Document) -> Bool {
        fields.allSatisfy { field in
            switch (FirestoreValue.value(at: field.path, in: before.fields), FirestoreValue.value(at: field.path, in: after.fields)) {
            case (nil, nil): true
            case (let old?, let new?): FirestoreValue.compare(old, new) == 0
            default: false
            }
        }
    }
}

extension FirestoreValue {
    /// `values` without repeats (values Firestore holds equal, such as `1` and `1.0`, once), in value order.
    static func distinct(_ values: [FirestoreValue]) -> [FirestoreValue] {
        var distinct: [FirestoreValue] = []
        for value in values.sorted(by: { compare($0, $1) < 0 }) where distinct.last.map({ compare($0, value) != 0 }) ?? true {
            distinct.append(value)
        }
        return distinct
    }
}

extension CollectionState {
    /// Keeps the collection's field indexes current when document `id` goes from `before` to `after`.
    mutating func reindexFields(of id: String, from before: Document?, to after: Document?) {
        // In place through the dictionary's positions: no key is hashed.
        var position = fieldIndexes.startIndex
        while position != fieldIndexes.endIndex {
            fieldIndexes.values[position].update(key: fieldIndexes.keys[position], id: id, from: before, to: after)
            fieldIndexes.formIndex(after: &position)
        }
    }

    /// The index of `key` over the documents that exist now, in O(n log n). Entries are taken in name order
    /// and sorted stably by value: entries of one value keep that order, so the sort never compares ids (a
    /// field of few values has many ties).
    func buildIndex(_ key: IndexKey) -> FieldIndex {
        if key.fields.count == 1 {
            let field = key.fields[0]
            var built: [IndexEntry] = []
            built.reserveCapacity(existingCount)
            for id in ids.ids() {
                field.forEachEntry(of: entries[id]?.current.flatMap { FirestoreValue.value(at: field.path, in: $0.fields) }) {
                    built.append(IndexEntry(value: $0, id: id))
                }
            }
            built.sort { IndexEntry.compareValues($0, $1) < 0 }
            return .single(SortedChunks(sorted: built))
        }
        var built: [CompositeIndexEntry] = []
        built.reserveCapacity(existingCount)
        for id in ids.ids() {
            key.forEachEntry(of: entries[id]?.current) { built.append(CompositeIndexEntry(first: $0, rest: $1, id: id)) }
        }
        built.sort { CompositeIndexEntry.compareValues($0, $1) < 0 }
        return .composite(SortedChunks(sorted: built))
    }
}
