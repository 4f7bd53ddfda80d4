import Synchronization

/// What waits to be written to one client, in order: enqueued without waiting (also with a database
/// locked), drained by the connection's writer. A client that lets more than `limit` items pile up is
/// cut off, so that it only hurts itself.
final class Outbox<Item: Sendable>: Sendable {
    /// The items, for the writer.
    let items: AsyncStream<Item>
    private let continuation: AsyncStream<Item>.Continuation
    private let pending = Atomic<Int>(0)
    private let overflowed = Atomic<Bool>(false)
    /// The most items that may wait.
    let limit: Int

    /// An empty outbox holding at most `limit` items.
    init(limit: Int) {
        self.limit = limit
        (items, continuation) = AsyncStream.makeStream(of: Item.self, bufferingPolicy: .unbounded)
    }

    /// Enqueues an item; past the limit the outbox closes instead (the writer stops, the connection ends).
    func send(_ item: Item) {
        guard !overflowed.load(ordering: .relaxed) else { return }
        if pending.add(1, ordering: .relaxed).newValue > limit {
            overflowed.store(true, ordering: .relaxed)
            continuation.finish()
            return
        }
        continuation.yield(item)
    }

    /// The writer took an item.
    func taken() {
        pending.subtract(1, ordering: .relaxed)
    }

    /// Whether the outbox closed because the client fell too far behind.
    var didOverflow: Bool { overflowed.load(ordering: .relaxed) }

    /// Ends the stream after what is queued.
    func finish() {
        continuation.finish()
    }
}
