/// A document's recent history: its versions in commit order, so reads at an earlier `read_time` (read-only
/// transactions, resumed listeners) see what was there then. The last version is the current state; a
/// version without a document is a delete.
struct DocumentEntry: Sendable {
    /// One state of the document from `time` on.
    struct Version: Sendable {
        /// The commit time the state began.
        var time: Timestamp
        /// The document, or `nil` once deleted.
        var document: Document?
    }

    /// The versions, oldest first; never empty.
    private(set) var versions: [Version]

    /// An entry whose first version is `document` at `time`.
    init(time: Timestamp, document: Document?) {
        versions = [Version(time: time, document: document)]
    }

    /// The document as it is now.
    var current: Document? { versions[versions.count - 1].document }

    /// When the current state began and whether it is a document (not a delete): what tells two states of an
    /// entry apart (commit times are unique). Read in place, so no document is copied.
    var currentStamp: (time: Timestamp, exists: Bool) {
        versions.withUnsafeBufferPointer { ($0[$0.count - 1].time, $0[$0.count - 1].document != nil) }
    }

    /// The document as it was at `time` (`nil` for now).
    func document(at time: Timestamp?) -> Document? {
        guard let time else { return current }
        guard let version = versions.last(where: { $0.time <= time }) else { return nil }
        return version.document
    }

    /// Records the state from `time` on, forgetting versions that ended before `horizon`.
    mutating func record(_ document: Document?, at time: Timestamp, horizon: Timestamp) {
        versions.append(Version(time: time, document: document))
        prune(before: horizon)
    }

    /// Drops versions superseded before `horizon` (the one in effect at `horizon` stays).
    mutating func prune(before horizon: Timestamp) {
        guard versions.count > 1 else { return }
        var firstKept = 0
        while firstKept + 1 < versions.count, versions[firstKept + 1].time <= horizon { firstKept += 1 }
        if firstKept > 0 { versions.removeFirst(firstKept) }
    }

    /// Whether nothing of the entry is worth keeping: it was deleted before `horizon`.
    func isForgotten(at horizon: Timestamp) -> Bool {
        versions.count == 1 && versions[0].document == nil && versions[0].time <= horizon
    }
}
