import NIOCore
import NIOPosix

/// Flushes of one event loop's connections held back while one pass writes to many streams: a commit
/// fanned out to 1,000 listen streams flushes each connection once, at the end of the pass, instead of
/// once per stream. The flush is held above NIOHTTP2's connection handler, whose every flush walks the
/// connection's buffered frames and ends in a `writev`.
///
/// Each event-loop thread has one (`current`); connections take part by conforming to `FlushBatchMember`.
final class FlushBatch {
    private var depth = 0
    private var held: [any FlushBatchMember] = []

    /// Thread-specific by construction: each thread sees only its own value.
    nonisolated(unsafe) private static let perThread = ThreadSpecificVariable<FlushBatch>()

    /// The batch of the calling thread (an event loop's).
    static var current: FlushBatch {
        if let batch = perThread.currentValue { return batch }
        let batch = FlushBatch()
        perThread.currentValue = batch
        return batch
    }

    /// Runs `body` with the flushes of this thread's connections held, then flushes each connection that
    /// asked, once. Passes may nest; the outermost flushes.
    func run(_ body: () -> Void) {
        depth += 1
        body()
        depth -= 1
        guard depth == 0, !held.isEmpty else { return }
        let held = self.held
        self.held = []
        for member in held { member.flushHeld() }
    }

    /// Holds `member`'s flush if a pass runs; false if it should flush now.
    func hold(_ member: any FlushBatchMember) -> Bool {
        guard depth > 0 else { return false }
        held.append(member)
        return true
    }
}

/// A connection whose flushes a `FlushBatch` pass may hold: it asks `hold` before flushing (once until
/// `flushHeld`), and flushes in `flushHeld` when the pass ends.
protocol FlushBatchMember: AnyObject {
    /// Flushes what the pass held back.
    func flushHeld()
}
