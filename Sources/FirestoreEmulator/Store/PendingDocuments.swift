/// The documents a commit writes, each once, in the order first written: its state before the commit and
/// after the commit's writes so far. Later writes of the commit start from it, its rules' `getAfter` reads
/// it (through `DatabaseView.peek`), and the store records it.
///
/// Most commits write a few documents, which are found by comparing paths; a larger commit's are found by
/// hash (a dictionary costs a hash per look-up and per insert, more than a few comparisons).
struct PendingDocuments {
    /// The paths, in the order first written.
    private(set) var paths: [DocumentPath] = []
    /// Each path's document as stored before the commit.
    private(set) var before: [Document?] = []
    /// Each path's document after the writes so far (`nil`: it does not exist).
    private(set) var after: [Document?] = []
    /// Positions by path, once there are more than `comparedAtMost` paths.
    private var positions: [DocumentPath: Int]?

    /// The most paths found by comparison.
    static let comparedAtMost = 16

    /// None, with room for `capacity` paths.
    init(capacity: Int = 0) {
        paths.reserveCapacity(capacity)
        before.reserveCapacity(capacity)
        after.reserveCapacity(capacity)
    }

    /// How many documents are written.
    var count: Int { paths.count }

    /// Where `path` is, if it is written.
    func position(of path: DocumentPath) -> Int? {
        if let positions { return positions[path] }
        return paths.firstIndex(of: path)
    }

    /// The document at `path` after the writes so far: `nil` when the commit does not write it, `.some(nil)`
    /// when the writes leave none.
    subscript(path: DocumentPath) -> Document?? {
        position(of: path).map { after[$0] }
    }

    /// Records the document at `position` after a write (`nil`: the write leaves none).
    mutating func set(_ document: Document?, at position: Int) {
        after[position] = document
    }

    /// Adds `path`, not yet written, whose stored document is `document`; returns its position.
    mutating func add(_ path: DocumentPath, stored document: Document?) -> Int {
        let position = paths.count
        paths.append(path)
        before.append(document)
        after.append(document)
        if positions != nil {
            positions![path] = position
        } else if paths.count > Self.comparedAtMost {
            positions = Dictionary(uniqueKeysWithValues: zip(paths, paths.indices))
        }
        return position
    }
}
