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

/// A single-field index of one collection: every existing document that has the field, by its value. Built
/// the first time a query of a large enough collection can use it, then kept current by every write (see
/// `DatabaseState.fieldIndex(_:in:)`).
typealias FieldIndex = SortedChunks<IndexEntryOrder>

extension CollectionState {
    /// Keeps the collection's field indexes current when document `id` goes from `before` to `after`.
    mutating func reindexFields(of id: String, from before: Document?, to after: Document?) {
        guard !fieldIndexes.isEmpty else { return }
        for field in Array(fieldIndexes.keys) {
            let old = before.flatMap { FirestoreValue.value(at: field, in: $0.fields) }
            let new = after.flatMap { FirestoreValue.value(at: field, in: $0.fields) }
            if let old, let new, FirestoreValue.compare(old, new) == 0 { continue }
            if let old { fieldIndexes[field]!.remove(IndexEntry(value: old, id: id)) }
            if let new { fieldIndexes[field]!.insert(IndexEntry(value: new, id: id)) }
        }
    }
}
