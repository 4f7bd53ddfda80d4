/// A consistent view of one database for the duration of one store operation: the state now or at a read
/// time, optionally with a commit's pending writes laid over it. Reads through it are recorded so a
/// transaction can later check nobody changed what it saw.
///
/// Valid only inside the `FirestoreStore` call that hands it out (it reads the state under the store's lock).
struct DatabaseView {
    /// The database's state.
    let state: DatabaseState
    /// The time read at (`nil`: now).
    let readTime: Timestamp?
    /// Pending writes of a commit: what `peek` sees instead of the stored state.
    var overlay: [DocumentPath: Document?] = [:]
    /// Documents read, with the update time seen (for transactions).
    private(set) var reads: [DocumentPath: Timestamp?] = [:]
    /// Queries run, with their results (for transactions).
    private(set) var queries: [(query: StructuredQuery, results: [DocumentPath: Timestamp])] = []

    /// Whether reads are recorded (inside a read-write transaction).
    let records: Bool

    /// A view of `state` at `readTime`, with `overlay` laid over it; `records` keeps what is read.
    init(state: DatabaseState, readTime: Timestamp?, overlay: [DocumentPath: Document?] = [:], records: Bool = false) {
        self.state = state
        self.readTime = readTime
        self.overlay = overlay
        self.records = records
    }

    /// The database's name.
    var name: DatabaseName { state.name }

    /// The document at `path` as this view sees it, without recording the read.
    func peek(at path: DocumentPath) -> Document? {
        if let pending = overlay[path] { return pending }
        return state.document(at: path, time: readTime)
    }

    /// The document at `path`, recording the read.
    mutating func document(at path: DocumentPath) -> Document? {
        let document = peek(at: path)
        if records { reads[path] = document?.updateTime }
        return document
    }

    /// The results of `query` (before projection is undone: projected documents keep their times),
    /// recording them.
    mutating func run(_ query: StructuredQuery) -> [Document] {
        let results: [Document]
        let state = self.state
        let readTime = self.readTime
        if query.allDescendants {
            let candidates = state.collectionGroup(query.collectionID, under: query.parent).lazy.flatMap {
                state.unorderedDocuments(in: $0, at: readTime)
            }
            results = query.run(over: candidates, in: name, candidatesInNameOrder: false)
        } else if query.normalizedOrder != [QueryOrder(field: .documentName)] {
            // The query sorts its matches anyway: scan in storage order.
            let candidates = state.unorderedDocuments(in: query.parent.appending(query.collectionID), at: readTime)
            results = query.run(over: candidates, in: name, candidatesInNameOrder: false)
        } else {
            let candidates = state.documents(in: query.parent.appending(query.collectionID), at: readTime)
            results = query.run(over: candidates, in: name, candidatesInNameOrder: true)
        }
        if records {
            var seen: [DocumentPath: Timestamp] = [:]
            for document in results { seen[document.path] = document.updateTime }
            queries.append((query, seen))
        }
        return results
    }
}
