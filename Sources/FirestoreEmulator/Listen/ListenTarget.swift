import EmulatorCore

/// A target a client listens to (`ListenRequest.add_target`), transport-agnostic.
struct ListenTarget: Sendable {
    /// What is watched.
    enum Kind: Sendable {
        /// The results of a query.
        case query(StructuredQuery)
        /// Named documents (the SDKs' document listeners and limbo resolution).
        case documents([DocumentPath])
    }

    /// Where a resumed target picks up.
    enum Resume: Sendable, Equatable {
        /// A new target: send everything.
        case none
        /// A resume token from an earlier `CURRENT` or snapshot.
        case token([UInt8])
        /// A read time the client has seen.
        case readTime(Timestamp)
    }

    /// The client's id for the target.
    var id: Int32
    /// What is watched.
    var kind: Kind
    /// Where to resume.
    var resume: Resume = .none
    /// Removed by the server once current (`once`).
    var once = false

    /// The documents the target can concern: its documents, or those of the queried collection or
    /// collection group (before the filter is applied).
    var scope: ListenScope {
        switch kind {
        case .documents(let paths): return .documents(Set(paths))
        case .query(let query):
            if query.allDescendants { return .group(parent: query.parent.segments, collectionID: query.collectionID) }
            return .collection(query.parent.segments + [query.collectionID])
        }
    }

    /// Whether a document's own state decides its membership (no limit, offset, cursors or vector search,
    /// which depend on the other documents): then a change is applied per document, else the query runs again.
    var isDecidedPerDocument: Bool {
        guard case .query(let query) = kind else { return true }
        return query.limit == nil && query.offset == 0 && query.startAt == nil && query.endAt == nil
            && query.findNearest == nil
    }
}

/// Which documents a target can concern, prepared once for checking every changed path.
enum ListenScope: Sendable {
    /// Exactly these documents.
    case documents(Set<DocumentPath>)
    /// The documents directly in the collection at these segments.
    case collection([String])
    /// The documents below `parent` in collections named `collectionID` (any name when empty).
    case group(parent: [String], collectionID: String)

    /// Whether `path`, a path of the database, is in the scope.
    func contains(_ path: DocumentPath) -> Bool {
        let segments = path.segments
        switch self {
        case .documents(let paths): return paths.contains(path)
        case .collection(let collection):
            return segments.count == collection.count + 1 && segments.starts(with: collection)
        case .group(let parent, let collectionID):
            guard path.isDocument, segments.count >= parent.count + 2, segments.starts(with: parent) else { return false }
            return collectionID.isEmpty || segments[segments.count - 2] == collectionID
        }
    }
}

/// A message of the listen stream (`ListenResponse`), transport-agnostic.
enum ListenEvent: Sendable, Equatable {
    /// `TargetChange.TargetChangeType`.
    enum ChangeKind: Int, Sendable {
        case noChange = 0, add = 1, remove = 2, current = 3, reset = 4
    }

    /// `target_change`; empty `targetIDs` with a `readTime` is a consistent snapshot of every target.
    /// `resumeTime` is the time its resume token stands for (`Timestamp.resumeToken`): the event carries
    /// the time, and the transport writes the token, so the snapshot every listener gets allocates nothing.
    case targetChange(ChangeKind, targetIDs: [Int32], cause: FirestoreError? = nil, resumeTime: Timestamp? = nil, readTime: Timestamp? = nil)
    /// `document_change`: the document now matches `targetIDs` and no longer matches `removedTargetIDs`.
    case documentChange(Document, targetIDs: [Int32], removedTargetIDs: [Int32])
    /// `document_delete`: the document was deleted.
    case documentDelete(DocumentPath, removedTargetIDs: [Int32], readTime: Timestamp)
    /// `document_remove`: the document exists but left the targets.
    case documentRemove(DocumentPath, removedTargetIDs: [Int32], readTime: Timestamp)
    /// `filter`: how many documents the target matches now; a client that counts otherwise re-listens.
    case existenceFilter(targetID: Int32, count: Int32)
}

extension Timestamp {
    /// The resume token for a snapshot at this time: its microseconds, big-endian.
    var resumeToken: [UInt8] {
        withUnsafeBytes(of: UInt64(bitPattern: microseconds).bigEndian) { Array($0) }
    }

    /// The time a resume token stands for, if it is one of ours.
    init?(resumeToken: [UInt8]) {
        guard resumeToken.count == 8 else { return nil }
        let value = resumeToken.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        self.init(microseconds: Int64(bitPattern: value))
    }
}
