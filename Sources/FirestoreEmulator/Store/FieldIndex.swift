import EmulatorCore

/// One entry of a field index: a document's value of the indexed field (for an index of several fields,
/// an array of their values in the index's order), and the document's id.
struct IndexEntry: Sendable {
    /// `value.orderPrefix`: most comparisons of an index search read only this.
    var prefix: UInt64
    /// The field's value, or the fields' values as an array.
    var value: FirestoreValue
    /// The document's id in its collection.
    var id: String

    /// The entry of `value` for document `id`.
    init(value: FirestoreValue, id: String) {
        prefix = value.orderPrefix
        self.value = value
        self.id = id
    }
}

/// Field values in Firestore's value order (an index of several fields: their values in turn, as arrays
/// compare), then document ids in name order: the order of a query that orders by the fields (ascending;
/// read backwards for descending), ties broken by name as production does.
enum IndexEntryOrder: ChunkOrder {
    /// Entries are larger than ids, and a write inserts one per index: small chunks keep that move short.
    static var chunkLimit: Int { 64 }

    static func precedes(_ a: IndexEntry, _ b: IndexEntry) -> Bool {
        let order = compareValues(a, b)
        return order != 0 ? order < 0 : DocumentIDOrder.precedes(a.id, b.id)
    }

    /// -1, 0 or 1 as the entries' values compare: by their prefixes when those differ.
    @inline(__always) static func compareValues(_ a: IndexEntry, _ b: IndexEntry) -> Int {
        if a.prefix != b.prefix { return a.prefix < b.prefix ? -1 : 1 }
        return FirestoreValue.compare(a.value, b.value)
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

    /// Calls `body` with each value `document` puts in the index: for one field, its entries; for several,
    /// an array for each combination of their entries (none when the document lacks one of the fields).
    func forEachEntry(of document: Document?, _ body: (FirestoreValue) -> Void) {
        guard let document else { return }
        if fields.count == 1 {
            fields[0].forEachEntry(of: FirestoreValue.value(at: fields[0].path, in: document.fields), body)
            return
        }
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
        guard !elements.isEmpty else { return body(.array(components)) }
        // Each combination, counting through the array-contains fields' elements like an odometer.
        var choices = [Int](repeating: 0, count: elements.count)
        while true {
            body(.array(components))
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
        if key.fields.count == 1 {
            // The common case, each value looked up once.
            let field = key.fields[0]
            let oldValue = before.flatMap { FirestoreValue.value(at: field.path, in: $0.fields) }
            let newValue = after.flatMap { FirestoreValue.value(at: field.path, in: $0.fields) }
            if let oldValue, let newValue, FirestoreValue.compare(oldValue, newValue) == 0 { return }
            field.forEachEntry(of: oldValue) { index.remove(IndexEntry(value: $0, id: id)) }
            field.forEachEntry(of: newValue) { index.insert(IndexEntry(value: $0, id: id)) }
        } else {
            if let before, let after, key.sameValues(before, after) { return }
            key.forEachEntry(of: before) { index.remove(IndexEntry(value: $0, id: id)) }
            key.forEachEntry(of: after) { index.insert(IndexEntry(value: $0, id: id)) }
        }
    }

    /// The index of `key` over the documents that exist now, in O(n log n). Entries are taken in name order
    /// and sorted stably by value: entries of one value keep that order, so the sort never compares ids (a
    /// field of few values has many ties).
    func buildIndex(_ key: IndexKey) -> FieldIndex {
        var built: [IndexEntry] = []
        built.reserveCapacity(existingCount)
        for id in ids.ids() {
            key.forEachEntry(of: entries[id]?.current) { built.append(IndexEntry(value: $0, id: id)) }
        }
        built.sort { IndexEntryOrder.compareValues($0, $1) < 0 }
        return FieldIndex(sorted: built)
    }
}
