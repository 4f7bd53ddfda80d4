import DatabaseTree

/// Which listen: a location and, for a query that does not load all data, the query (sent tagged).
struct ListenKey: Hashable, Sendable {
    var location: DatabasePath
    var query: DatabaseTree.DatabaseQuery?
}

/// One listen on the wire, shared by every subscriber to the same location and query.
struct Listen {
    /// A stream of snapshots fed by the listen.
    struct Subscriber {
        let continuation: AsyncThrowingStream<DataSnapshot, any Error>.Continuation
        /// The order the subscriber's snapshots list children in.
        let order: DatabaseTree.DatabaseQuery.Index

        func publish(_ view: ListenView) {
            continuation.yield(DataSnapshot(node: view.node, at: view.location, order: order))
        }
    }

    /// The id of its registration (its first subscriber's).
    let id: UInt64
    /// Its tag, when it is a query that does not load all data.
    let tag: Int?
    var view: ListenView
    /// Whether the server acknowledged it (after pushing its data): snapshots go out from then on.
    var isReady = false
    var subscribers: [UInt64: Subscriber] = [:]
}
