import EmulatorCore
import Synchronization

/// Every document of one database, indexed for what Firestore asks of it: documents by path (now or at a
/// recent read time), collections in name order, collection groups, collection ids under a parent, and
/// "missing" documents (absent themselves but with documents below them).
///
/// A reference type owned by `FirestoreStore`, which only touches it under its lock.
final class DatabaseState {
    /// The database's name.
    let name: DatabaseName
    /// Collections by their path (`rooms`, `rooms/a/messages`).
    private(set) var collections: [DocumentPath: CollectionState] = [:]
    /// Collection paths by collection id, for collection-group queries.
    private var collectionsByID: [String: Set<DocumentPath>] = [:]
    /// For each collection path: how many existing documents lie in it or below it.
    private var subtreeCounts: [DocumentPath: Int] = [:]
    /// For each parent (the root or a document): the ids of its non-empty child collections.
    private var childCollections: [DocumentPath: Set<String>] = [:]
    /// Deletes in commit order, to forget tombstones once they leave the read-time window.
    private var tombstones: [(time: Timestamp, path: DocumentPath)] = []
    private var tombstoneStart = 0
    /// How many documents exist now.
    private(set) var documentCount = 0

    /// Where collection revisions come from.
    private static let revisions = Atomic<UInt64>(0)

    /// An empty database.
    init(name: DatabaseName) {
        self.name = name
    }

    /// An independent copy, in O(1): the indexes are copy-on-write, so the first change to either copies
    /// only what it touches (a checkpoint, or a restore of one).
    func copy() -> DatabaseState {
        let copy = DatabaseState(name: name)
        copy.collections = collections
        copy.collectionsByID = collectionsByID
        copy.subtreeCounts = subtreeCounts
        copy.childCollections = childCollections
        copy.tombstones = tombstones
        copy.tombstoneStart = tombstoneStart
        copy.documentCount = documentCount
        return copy
    }

    /// The documents that are not the same in `other`, with their states here (`before`) and there
    /// (`after`). Collections of one revision are skipped unread; entries are compared by when their current
    /// state began (commit times are unique), which copies no document.
    func differences(to other: DatabaseState) -> [(path: DocumentPath, before: Document?, after: Document?)] {
        Set(collections.keys).union(other.collections.keys).flatMap { path in
            Self.changes(from: collections[path], to: other.collections[path]).map { (path.appending($0.id), $0.before, $0.after) }
        }
    }

    /// The documents among `paths` that are not the same in `other` (what a change log says may differ).
    func differences(to other: DatabaseState, at paths: Set<DocumentPath>) -> [(path: DocumentPath, before: Document?, after: Document?)] {
        paths.compactMap { path in
            let id = path.lastSegment ?? ""
            return Self.difference(collections[path.parent]?.entries[id], other.collections[path.parent]?.entries[id])
                .map { (path, $0.before, $0.after) }
        }
    }

    /// The documents of one collection that are not the same in two of its states, by id, with their states
    /// in each; none, unread, when both have one revision.
    private static func changes(from mine: CollectionState?, to theirs: CollectionState?) -> [(id: String, before: Document?, after: Document?)] {
        if let mine, let theirs, mine.revision == theirs.revision { return [] }
        var result: [(id: String, before: Document?, after: Document?)] = []
        for (id, entry) in mine?.entries ?? [:] {
            if let difference = difference(entry, theirs?.entries[id]) { result.append((id, difference.before, difference.after)) }
        }
        for (id, entry) in theirs?.entries ?? [:] where mine?.entries[id] == nil {
            if let difference = difference(nil, entry) { result.append((id, difference.before, difference.after)) }
        }
        return result
    }

    /// A document's states in two entries of its history, unless they are the same.
    private static func difference(_ mine: DocumentEntry?, _ theirs: DocumentEntry?) -> (before: Document?, after: Document?)? {
        let none: (time: Timestamp, exists: Bool) = (Timestamp(seconds: 0, nanos: 0), false)
        let before = mine?.currentStamp ?? none
        let after = theirs?.currentStamp ?? none
        if before.exists == after.exists, !before.exists || before.time == after.time { return nil }
        return (mine?.current, theirs?.current)
    }

    /// The document at `path` now, or at `time`.
    func document(at path: DocumentPath, time: Timestamp? = nil) -> Document? {
        // Read in place: `collections[path.parent]?.entries` would copy the collection's state out, field by field.
        guard let id = path.lastSegment, let position = collections.index(forKey: path.parent) else { return nil }
        return collections.values[position].entries[id]?.document(at: time)
    }

    /// Records `document` (or a delete when `nil`) at `path` from `time` on, keeping versions back to `horizon`.
    func record(_ document: Document?, at path: DocumentPath, time: Timestamp, horizon: Timestamp) {
        let collectionPath = path.parent
        let id = path.lastSegment ?? ""
        let position = collections.index(forKey: collectionPath) ?? register(collectionPath)
        let before = Self.record(document, id: id, time: time, horizon: horizon, in: &collections.values[position])
        switch (before, document) {
        case (nil, .some):
            documentCount += 1
            adjustAncestors(of: path, by: 1)
        case (.some, nil):
            documentCount -= 1
            adjustAncestors(of: path, by: -1)
            tombstones.append((time, path))
        default: break
        }
        forgetTombstones(before: horizon)
    }

    /// Adds `documents`, none of which the database holds yet, each as of its update time (a restart reading a
    /// data folder). Documents of one collection that come one after another are added in one step: the
    /// collection and its ancestors' counts are looked up once for the run, not once per document.
    func load(_ documents: [Document]) {
        var start = 0
        while start < documents.count {
            let first = documents[start].path
            let parent = first.parent
            var end = start + 1
            while end < documents.count, documents[end].path.segments.count == first.segments.count,
                documents[end].path.segments.dropLast().elementsEqual(parent.segments)
            {
                end += 1
            }
            register(parent)
            var collection = collections.removeValue(forKey: parent)!
            collection.entries.reserveCapacity(collection.entries.count + end - start)
            var added = 0
            for document in documents[start..<end] {
                let id = document.path.lastSegment ?? ""
                guard collection.entries[id] == nil else { continue }
                collection.entries[id] = DocumentEntry(time: document.updateTime, document: document)
                collection.ids.insert(id)
                collection.reindexFields(of: id, from: nil, to: document)
                added += 1
            }
            collection.revision = Self.revisions.add(1, ordering: .relaxed).newValue
            collection.existingCount += added
            collections[parent] = collection
            documentCount += added
            if added > 0 { adjustAncestors(of: first, by: added) }
            start = end
        }
    }

    /// Records a version of document `id` in `collection`, with its revision, field indexes and count; returns
    /// the previous version. The collection is looked up once by the caller, and an existing entry changes in
    /// place.
    private static func record(
        _ document: Document?, id: String, time: Timestamp, horizon: Timestamp, in collection: inout CollectionState
    ) -> Document? {
        let before: Document?
        if let position = collection.entries.index(forKey: id) {
            before = collection.entries.values[position].current
            collection.entries.values[position].record(document, at: time, horizon: horizon)
        } else {
            before = nil
            guard document != nil else { return nil }
            collection.entries[id] = DocumentEntry(time: time, document: document)
            collection.ids.insert(id)
        }
        collection.revision = revisions.add(1, ordering: .relaxed).newValue
        collection.reindexFields(of: id, from: before, to: document)
        collection.existingCount += (document != nil ? 1 : 0) - (before != nil ? 1 : 0)
        return before
    }

    /// The documents of the collection at `collectionPath` that exist now (or at `time`), in name order,
    /// starting at the id `start` when given.
    func documents(in collectionPath: DocumentPath, at time: Timestamp? = nil, from start: String? = nil)
        -> some Sequence<Document>
    {
        let collection = collections[collectionPath]
        return (collection?.ids.ids(from: start) ?? SortedIDs().ids()).lazy.compactMap { id in
            collection?.entries[id]?.document(at: time)
        }
    }

    /// The documents of the collection at `collectionPath` that exist now (or at `time`), in no particular
    /// order: the fastest scan, for queries that sort anyway.
    func unorderedDocuments(in collectionPath: DocumentPath, at time: Timestamp? = nil) -> some Sequence<Document> {
        (collections[collectionPath]?.entries.values ?? [:].values).lazy.compactMap { $0.document(at: time) }
    }

    /// The ids in name order of the collection's documents that exist now or are missing but have
    /// documents below them, with whether each exists.
    func listing(of collectionPath: DocumentPath, from start: String? = nil) -> some Sequence<(id: String, exists: Bool)> {
        let collection = collections[collectionPath]
        return (collection?.ids.ids(from: start) ?? SortedIDs().ids()).lazy.compactMap { id -> (id: String, exists: Bool)? in
            if collection?.entries[id]?.current != nil { return (id, true) }
            return (collection?.descendants[id] ?? 0) > 0 ? (id, false) : nil
        }
    }

    /// How many documents the collection at `collectionPath` holds now.
    func existingCount(in collectionPath: DocumentPath) -> Int {
        collections[collectionPath]?.existingCount ?? 0
    }

    /// The index with `key` of the collection at `collectionPath`, built now (in O(n log n)) if the
    /// collection has none yet and holds at least `minimumCount` documents; `nil` otherwise. Once built,
    /// every write keeps it current.
    func fieldIndex(_ key: IndexKey, in collectionPath: DocumentPath, minimumCount: Int) -> FieldIndex? {
        guard let collection = collections[collectionPath] else { return nil }
        if let index = collection.fieldIndexes[key] { return index }
        guard collection.existingCount >= minimumCount else { return nil }
        let index = collection.buildIndex(key)
        collections[collectionPath]!.fieldIndexes[key] = index
        return index
    }

    /// Installs `index` of `key`, built outside the store's lock from `snapshot` (an earlier state of the
    /// collection at `collectionPath`), after bringing it up to date with every document written since.
    /// Nothing happens if the collection has the index by now or is gone.
    func install(_ index: FieldIndex, key: IndexKey, in collectionPath: DocumentPath, builtFrom snapshot: CollectionState) {
        guard let collection = collections[collectionPath], collection.fieldIndexes[key] == nil else { return }
        var index = index
        for change in Self.changes(from: snapshot, to: collection) {
            index.update(key: key, id: change.id, from: change.before, to: change.after)
        }
        collections[collectionPath]!.fieldIndexes[key] = index
    }

    /// The collection at `collectionPath` as it is now (a copy-on-write copy, O(1)).
    func collection(at collectionPath: DocumentPath) -> CollectionState? {
        collections[collectionPath]
    }

    /// The paths of collections named `collectionID` at or below `parent` (the root: everywhere); every
    /// collection there when `collectionID` is empty (a kindless query, as `recursiveDelete` sends).
    func collectionGroup(_ collectionID: String, under parent: DocumentPath) -> [DocumentPath] {
        let candidates = collectionID.isEmpty ? Array(collections.keys) : Array(collectionsByID[collectionID] ?? [])
        return candidates.filter { parent.isPrefix(of: $0) }.sorted()
    }

    /// The ids of the non-empty collections directly under `parent` (the root or a document), sorted.
    func collectionIDs(under parent: DocumentPath) -> [String] {
        (childCollections[parent] ?? []).sorted { SortedIDs.precedes($0, $1) }
    }

    /// Removes every document and its history.
    func removeAll() {
        collections = [:]
        collectionsByID = [:]
        subtreeCounts = [:]
        childCollections = [:]
        tombstones = []
        tombstoneStart = 0
        documentCount = 0
    }

    /// Adds the collection at `collectionPath` unless it is there; returns where it is.
    @discardableResult
    private func register(_ collectionPath: DocumentPath) -> Dictionary<DocumentPath, CollectionState>.Index {
        if let position = collections.index(forKey: collectionPath) { return position }
        collections[collectionPath] = CollectionState()
        collectionsByID[collectionPath.lastSegment ?? "", default: []].insert(collectionPath)
        return collections.index(forKey: collectionPath)!
    }

    private func unregisterIfEmpty(_ collectionPath: DocumentPath) {
        guard let collection = collections[collectionPath], collection.isEmpty else { return }
        collections[collectionPath] = nil
        let id = collectionPath.lastSegment ?? ""
        collectionsByID[id]?.remove(collectionPath)
        if collectionsByID[id]?.isEmpty == true { collectionsByID[id] = nil }
    }

    /// Counts a document appearing (+1) or disappearing (-1) in every collection and document above it.
    private func adjustAncestors(of path: DocumentPath, by delta: Int) {
        for length in 1..<path.segments.count {
            let prefix = DocumentPath(segments: Array(path.segments.prefix(length)))
            if length.isMultiple(of: 2) {
                let collectionPath = prefix.parent
                let id = prefix.lastSegment ?? ""
                register(collectionPath)
                let count = (collections[collectionPath]!.descendants[id] ?? 0) + delta
                collections[collectionPath]!.descendants[id] = count > 0 ? count : nil
                collections[collectionPath]!.reindex(id)
                unregisterIfEmpty(collectionPath)
            } else {
                let count = (subtreeCounts[prefix] ?? 0) + delta
                subtreeCounts[prefix] = count > 0 ? count : nil
                let parent = prefix.parent
                if delta > 0, count == delta {
                    childCollections[parent, default: []].insert(prefix.lastSegment ?? "")
                } else if count == 0 {
                    childCollections[parent]?.remove(prefix.lastSegment ?? "")
                    if childCollections[parent]?.isEmpty == true { childCollections[parent] = nil }
                }
            }
        }
    }

    /// Forgets deleted documents whose delete is older than `horizon` (and nothing newer happened to them).
    private func forgetTombstones(before horizon: Timestamp) {
        while tombstoneStart < tombstones.count, tombstones[tombstoneStart].time <= horizon {
            let path = tombstones[tombstoneStart].path
            tombstoneStart += 1
            let collectionPath = path.parent
            let id = path.lastSegment ?? ""
            guard var entry = collections[collectionPath]?.entries[id] else { continue }
            entry.prune(before: horizon)
            if entry.isForgotten(at: horizon) {
                collections[collectionPath]!.entries[id] = nil
                collections[collectionPath]!.reindex(id)
                unregisterIfEmpty(collectionPath)
            } else {
                collections[collectionPath]!.entries[id] = entry
            }
        }
        if tombstoneStart > 1024, tombstoneStart * 2 > tombstones.count {
            tombstones.removeFirst(tombstoneStart)
            tombstoneStart = 0
        }
    }
}
