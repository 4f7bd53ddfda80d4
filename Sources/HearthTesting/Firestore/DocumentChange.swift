/// How one document of a query's results changed since the listener's previous snapshot.
public struct DocumentChange: Sendable, Hashable {
    /// The kinds of change.
    public enum Kind: Sendable, Hashable {
        /// The document entered the results (every document of a first snapshot is added).
        case added
        /// The document is still in the results with new data.
        case modified
        /// The document left the results (deleted, or no longer matching).
        case removed
    }

    /// The kind of change.
    public let kind: Kind
    /// The document: its new state, or its last state for `removed`.
    public let document: DocumentSnapshot
}
