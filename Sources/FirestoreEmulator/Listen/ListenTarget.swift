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

    /// Whether `path` (a document of the database) is in the target's scope: one of its documents, or in
    /// the queried collection or collection group (before the filter is applied).
    func scopes(_ path: DocumentPath) -> Bool {
        switch kind {
        case .documents(let paths): return paths.contains(path)
        case .query(let query):
            guard path.isDocument else { return false }
            let collection = path.parent
            if query.allDescendants {
                return query.parent.isPrefix(of: collection)
                    && (query.collectionID.isEmpty || collection.lastSegment == query.collectionID)
            }
            return collection == query.parent.appending(query.collectionID)
        }
    }

    /// Whether a document's own state decides its membership (no limit, offset or cursors, which depend on
    /// the other documents): then a change is applied per document, else the query runs again.
    var isDecidedPerDocument: Bool {
        guard case .query(let query) = kind else { return true }
        return query.limit == nil && query.offset == 0 && query.startAt == nil && query.endAt == nil
    }
}

/// A message of the listen stream (`ListenResponse`), transport-agnostic.
enum ListenEvent: Sendable {
    /// `TargetChange.TargetChangeType`.
    enum ChangeKind: Int, Sendable {
        case noChange = 0, add = 1, remove = 2, current = 3, reset = 4
    }

    /// `target_change`; empty `targetIDs` with a `readTime` is a consistent snapshot of every target.
    case targetChange(ChangeKind, targetIDs: [Int32], cause: APIError? = nil, resumeToken: [UInt8]? = nil, readTime: Timestamp? = nil)
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
