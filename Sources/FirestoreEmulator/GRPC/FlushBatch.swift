import NIOCore
import NIOPosix

/// Flushes of one event loop's connections held back while one pass writes to many streams: a commit
/// fanned out to 1,000 listen streams flushes each connection once, at the end of the pass, instead of
/// once per stream (an HTTP/2 stream's flush flushes its whole connection: a `writev` each).
///
/// Each event-loop thread has one (`current`); connections take part through a `FlushBatchingHandler`.
final class FlushBatch {
    private var depth = 0
    private var held: [FlushBatchingHandler] = []

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
        for handler in held { handler.flushHeld() }
    }

    /// Holds `handler`'s flush if a pass runs; false if it should flush now.
    fileprivate func hold(_ handler: FlushBatchingHandler) -> Bool {
        guard depth > 0 else { return false }
        held.append(handler)
        return true
    }
}

/// Sits next to the socket of a connection whose streams `FlushBatch` passes write to: a flush during a
/// pass is held until the pass ends, one per connection; any other flush goes through at once.
final class FlushBatchingHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = Any

    private var context: ChannelHandlerContext?
    private var batch: FlushBatch?
    private var isHeld = false

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        batch = FlushBatch.current
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func flush(context: ChannelHandlerContext) {
        if isHeld { return }
        if batch?.hold(self) == true {
            isHeld = true
        } else {
            context.flush()
        }
    }

    /// Flushes what the pass held back.
    fileprivate func flushHeld() {
        isHeld = false
        context?.flush()
    }
}
