import EmulatorCore

/// One entry of a field index: a document's value of the indexed field (for an index of several fields,
/// an array of their values in the index's order), and the document's id.
struct IndexEntry: Sendable {
    /// The field's value, or the fields' values as an array.
    var value: FirestoreValue
    /// The document's id in its collection.
    var id: String
}

/// Field values in Firestore's value order (an index of several fields: their values in turn, as arrays
/// compare), then document ids in name order: the order of a query that orders by the fields (ascending;
/// read backwards for descending), ties broken by name as production does.
enum IndexEntryOrder: ChunkOrder {
    /// Entries are larger than ids, and a write inserts one per index: small chunks keep that move short.
    static var chunkLimit: Int { 64 }

    static func precedes(_ a: IndexEntry, _ b: IndexEntry) -> Bool {
        let order = FirestoreValue.compare(a.value, b.value)
        return order != 0 ? order < 0 : DocumentIDOrder.precedes(a.id, b.id)
    }
}

/// An index of one collection: every existing document that has the key's fields, by their values (or, for
/// an array-contains field, once by each distinct element of its array). Built the first time a query can
/// use it, then kept current by every write (see `DatabaseState.fieldIndex(_:in:minimumCount:)`).
typealias FieldIndex = SortedChunks<IndexEntryOrder>

/// What a field index orders: a field's values, or the elements of its arrays (array-contains).
struct IndexedField: Sendable, Hashable {
    /// The field.
    var path: FieldPath
    /// Whether the entries are the array's elements rather than the value.
    var elements = false

    /// The values a document's `value` of the field puts in the index: itself, or its array's distinct
    /// elements (none when it is not an array).
    func entries(for value: FirestoreValue?) -> [FirestoreValue] {
        guard let value else { return [] }
        guard elements else { return [value] }
        guard case .array(let items) = value else { return [] }
        return FirestoreValue.distinct(items)
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

    /// The values `document` puts in the index: for one field, its entries; for several, an array for each
    /// combination of their entries (none when the document lacks one of the fields).
    func entries(for document: Document?) -> [FirestoreValue] {
        guard let document else { return [] }
        if fields.count == 1 { return fields[0].entries(for: FirestoreValue.value(at: fields[0].path, in: document.fields)) }
        var combinations: [[FirestoreValue]] = [[]]
        for field in fields {
            let values = field.entries(for: FirestoreValue.value(at: field.path, in: document.fields))
            if values.isEmpty { return [] }
            combinations = values.count == 1
                ? combinations.map { $0 + values } : combinations.flatMap { prefix in values.map { prefix + [$0] } }
        }
        return combinations.map { .array($0) }
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

    /// Entry `value`'s value of the key's field at `position`.
    func component(_ position: Int, of value: FirestoreValue) -> FirestoreValue {
        guard fields.count > 1, case .array(let values) = value else { return value }
        return values[position]
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
            Self.update(&fieldIndexes.values[position], key: fieldIndexes.keys[position], id: id, from: before, to: after)
            fieldIndexes.formIndex(after: &position)
        }
    }

    /// Keeps `index` (of `key`) current when document `id` goes from `before` to `after`.
    static func update(_ index: inout FieldIndex, key: IndexKey, id: String, from before: Document?, to after: Document?) {
        let old: [FirestoreValue]
        let new: [FirestoreValue]
        if key.fields.count == 1 {
            // The common case, each value looked up once.
            let field = key.fields[0]
            let oldValue = before.flatMap { FirestoreValue.value(at: field.path, in: $0.fields) }
            let newValue = after.flatMap { FirestoreValue.value(at: field.path, in: $0.fields) }
            if let oldValue, let newValue, FirestoreValue.compare(oldValue, newValue) == 0 { return }
            (old, new) = (field.entries(for: oldValue), field.entries(for: newValue))
        } else {
            if let before, let after, key.sameValues(before, after) { return }
            (old, new) = (key.entries(for: before), key.entries(for: after))
        }
        for value in old { index.remove(IndexEntry(value: value, id: id)) }
        for value in new { index.insert(IndexEntry(value: value, id: id)) }
    }

    /// The index of `key` over the documents that exist now, in O(n log n). Entries are taken in name order
    /// and sorted stably by value: entries of one value keep that order, so the sort never compares ids (a
    /// field of few values has many ties).
    func buildIndex(_ key: IndexKey) -> FieldIndex {
        var built: [IndexEntry] = []
        built.reserveCapacity(existingCount)
        for id in ids.ids() {
            for value in key.entries(for: entries[id]?.current) { built.append(IndexEntry(value: value, id: id)) }
        }
        built.sort { FirestoreValue.compare($0.value, $1.value) < 0 }
        return FieldIndex(sorted: built)
    }
}
