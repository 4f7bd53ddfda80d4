/// A query's results at one point in time.
public struct QuerySnapshot: Sendable, Hashable {
    /// The matching documents, in the query's order.
    public let documents: [DocumentSnapshot]
    /// What changed since the listener's previous snapshot (removals, then additions, then modifications,
    /// each in the query's order); for a first snapshot or a one-time read, every document as added.
    public let documentChanges: [DocumentChange]
    /// The time the results are consistent at.
    public let readTime: Timestamp
}
