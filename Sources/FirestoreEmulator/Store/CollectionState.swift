import EmulatorCore

/// One collection of one database: its documents' histories, and the ids in name order of every document
/// that exists, existed recently, or is "missing" but has documents below it.
struct CollectionState: Sendable {
    /// Document histories by id.
    var entries: [String: DocumentEntry] = [:]
    /// Ids of `entries` plus ids of missing documents with descendants, in name order.
    var ids = SortedIDs()
    /// For each document id: how many existing documents lie below it (in its subcollections).
    var descendants: [String: Int] = [:]
    /// Set anew, unique in the process, whenever a document of the collection changes: two states of a
    /// collection (a checkpoint's and now) with one revision hold the same documents.
    var revision: UInt64 = 0
    /// How many of `entries` exist now (the others are recent deletes).
    var existingCount = 0
    /// The indexes built for queries, by key (see `FieldIndex`).
    var fieldIndexes: [IndexKey: FieldIndex] = [:]

    /// Whether the collection holds nothing at all.
    var isEmpty: Bool { ids.count == 0 }

    /// Keeps `id` in the index while it has an entry or descendants, removes it otherwise.
    mutating func reindex(_ id: String) {
        if entries[id] != nil || (descendants[id] ?? 0) > 0 {
            ids.insert(id)
        } else {
            ids.remove(id)
        }
    }
}
