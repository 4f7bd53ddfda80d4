/// The documents commits changed, in order, recorded once a checkpoint exists: a restore then finds what
/// differs from its checkpoint by reading what changed since it was taken (or last restored), at a cost of
/// what changed, not of what is stored. Bulk changes (clear, import) and a log grown past its capacity make
/// earlier positions unknown; a restore from one compares whole collections instead.
struct ChangeLog {
    /// The most changes kept; half are dropped when it is reached.
    static let capacity = 1 << 18

    private var isRecording = false
    private var entries: [(database: DatabaseName, path: DocumentPath)] = []
    /// The position of `entries[0]`.
    private var base = 0

    /// The position after the last change, where a checkpoint taken now begins; recording starts.
    mutating func mark() -> Int {
        isRecording = true
        return base + entries.count
    }

    /// Records that the document at `path` of `database` changed.
    mutating func record(_ path: DocumentPath, in database: DatabaseName) {
        guard isRecording else { return }
        if entries.count >= Self.capacity {
            let dropped = entries.count / 2
            entries.removeFirst(dropped)
            base += dropped
        }
        entries.append((database, path))
    }

    /// Makes every position up to now unknown (a change too large to record path by path); the position
    /// after the last change too, so a checkpoint taken just before is not taken to be unchanged.
    mutating func forget() {
        base += entries.count + 1
        entries.removeAll()
    }

    /// The documents of `database` changed since `position`, or `nil` when that is no longer known.
    func paths(since position: Int, in database: DatabaseName) -> Set<DocumentPath>? {
        guard position >= base else { return nil }
        var paths = Set<DocumentPath>()
        for entry in entries[(position - base)...] where entry.database == database { paths.insert(entry.path) }
        return paths
    }
}
