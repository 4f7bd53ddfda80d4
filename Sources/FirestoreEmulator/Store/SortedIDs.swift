/// The ids of one collection's documents in Firestore's name order (numeric `__id<n>__` ids first, then
/// UTF-8 byte order), kept sorted under inserts and removals.
///
/// Stored as a list of sorted chunks of at most `chunkLimit` ids, so an insert moves at most one chunk's
/// worth of ids instead of the whole collection (a million-document collection stays cheap to grow).
struct SortedIDs: Sendable, Sequence {
    private var chunks: [[String]] = []
    private(set) var count = 0
    private static let chunkLimit = 512

    /// Creates an empty set.
    init() {}

    /// Whether `a` sorts before `b` as document ids do.
    static func precedes(_ a: String, _ b: String) -> Bool {
        if a.utf8.first != UInt8(ascii: "_"), b.utf8.first != UInt8(ascii: "_") {
            return FirestoreValue.compareUTF8(a.utf8, b.utf8) < 0
        }
        return FirestoreValue.compareSegments(Substring(a), Substring(b)) < 0
    }

    /// Adds `id` unless present; returns whether it was added.
    @discardableResult
    mutating func insert(_ id: String) -> Bool {
        guard !chunks.isEmpty else {
            chunks = [[id]]
            count = 1
            return true
        }
        // Ids that come in order (a restart, an import, increasing ids) go on the end without a search.
        let last = chunks.count - 1
        let appends = Self.precedes(chunks[last][chunks[last].count - 1], id)
        let chunkIndex = appends ? last : self.chunkIndex(for: id)
        let position = appends ? chunks[last].count : Self.lowerBound(of: id, in: chunks[chunkIndex])
        if position < chunks[chunkIndex].count, chunks[chunkIndex][position] == id { return false }
        chunks[chunkIndex].insert(id, at: position)
        count += 1
        if chunks[chunkIndex].count > 2 * Self.chunkLimit {
            let upper = Array(chunks[chunkIndex][Self.chunkLimit...])
            chunks[chunkIndex].removeSubrange(Self.chunkLimit...)
            chunks.insert(upper, at: chunkIndex + 1)
        }
        return true
    }

    /// Removes `id` if present; returns whether it was there.
    @discardableResult
    mutating func remove(_ id: String) -> Bool {
        guard !chunks.isEmpty else { return false }
        let chunkIndex = self.chunkIndex(for: id)
        let position = Self.lowerBound(of: id, in: chunks[chunkIndex])
        guard position < chunks[chunkIndex].count, chunks[chunkIndex][position] == id else { return false }
        chunks[chunkIndex].remove(at: position)
        count -= 1
        if chunks[chunkIndex].isEmpty { chunks.remove(at: chunkIndex) }
        return true
    }

    /// Whether `id` is present.
    func contains(_ id: String) -> Bool {
        guard !chunks.isEmpty else { return false }
        let chunk = chunks[chunkIndex(for: id)]
        let position = Self.lowerBound(of: id, in: chunk)
        return position < chunk.count && chunk[position] == id
    }

    /// The ids in order, starting at the first id not before `start` (all of them when `nil`).
    func ids(from start: String? = nil) -> IDs {
        guard let start, !chunks.isEmpty else { return IDs(chunks: chunks, chunk: 0, position: 0) }
        let first = chunkIndex(for: start)
        return IDs(chunks: chunks, chunk: first, position: Self.lowerBound(of: start, in: chunks[first]))
    }

    /// Iterates every id in order.
    func makeIterator() -> IDs { IDs(chunks: chunks, chunk: 0, position: 0) }

    /// The ids from a position on, in order.
    struct IDs: Sequence, IteratorProtocol {
        fileprivate let chunks: [[String]]
        fileprivate var chunk: Int
        fileprivate var position: Int

        /// The next id, or `nil` at the end.
        mutating func next() -> String? {
            while chunk < chunks.count {
                if position < chunks[chunk].count {
                    defer { position += 1 }
                    return chunks[chunk][position]
                }
                chunk += 1
                position = 0
            }
            return nil
        }
    }

    /// The chunk that holds (or would hold) `id`: the last chunk whose first id is not after it.
    private func chunkIndex(for id: String) -> Int {
        var low = 0
        var high = chunks.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if Self.precedes(id, chunks[middle][0]) { high = middle - 1 } else { low = middle }
        }
        return low
    }

    private static func lowerBound(of id: String, in chunk: [String]) -> Int {
        var low = 0
        var high = chunk.count
        while low < high {
            let middle = (low + high) / 2
            if precedes(chunk[middle], id) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
