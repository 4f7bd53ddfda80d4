import EmulatorCore

/// One entry of a field index: a document's value of the field, and the document's id.
struct IndexEntry: Sendable {
    /// The field's value.
    var value: FirestoreValue
    /// The document's id in its collection.
    var id: String
}

/// Field values in Firestore's value order, then document ids in name order: the order of a query that
/// orders by the field (ascending; read backwards for descending), ties broken by name as production does.
enum IndexEntryOrder: ChunkOrder {
    /// Entries are larger than ids, and a write inserts one per index: small chunks keep that move short.
    static var chunkLimit: Int { 64 }

    static func precedes(_ a: IndexEntry, _ b: IndexEntry) -> Bool {
        let order = FirestoreValue.compare(a.value, b.value)
        return order != 0 ? order < 0 : DocumentIDOrder.precedes(a.id, b.id)
    }
}

/// A single-field index of one collection: every existing document that has the field, by its value (or,
/// for an array-contains index, once by each distinct element of its array). Built the first time a query
/// can use it, then kept current by every write (see `DatabaseState.fieldIndex(_:in:minimumCount:)`).
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
        guard !fieldIndexes.isEmpty else { return }
        for field in Array(fieldIndexes.keys) {
            let old = before.flatMap { FirestoreValue.value(at: field.path, in: $0.fields) }
            let new = after.flatMap { FirestoreValue.value(at: field.path, in: $0.fields) }
            if let old, let new, FirestoreValue.compare(old, new) == 0 { continue }
            for value in field.entries(for: old) { fieldIndexes[field]!.remove(IndexEntry(value: value, id: id)) }
            for value in field.entries(for: new) { fieldIndexes[field]!.insert(IndexEntry(value: value, id: id)) }
        }
    }
}
