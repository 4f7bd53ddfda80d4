import Foundation
import Synchronization
import UnixSignals

/// SIGINT, SIGTERM and SIGHUP as the official CLI counts them: a signal within 100 ms of the previous one is
/// the same press (ignored); the first asks for a clean shutdown (with export-on-exit), a second one while that
/// runs abandons the export and exits.
final class ShutdownSignals: Sendable {
    private struct State {
        var count = 0
        var last: ContinuousClock.Instant?
        var waiters: [(id: UUID, count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    /// Starts counting the signals, for the rest of the process; `forward` sees each one counted (exec hands
    /// them to its child).
    init(forward: @escaping @Sendable (UnixSignal) -> Void = { _ in }) async {
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm, .sighup)
        Task {
            for await signal in signals {
                let now = ContinuousClock.now
                let ready = self.state.withLock { state -> [CheckedContinuation<Void, Never>]? in
                    if let last = state.last, now - last < .milliseconds(100) { return nil }
                    state.last = now
                    state.count += 1
                    let count = state.count
                    let ready = state.waiters.filter { $0.count <= count }.map(\.continuation)
                    state.waiters.removeAll { $0.count <= count }
                    return ready
                }
                guard let ready else { continue }
                forward(signal)
                for continuation in ready { continuation.resume() }
            }
        }
    }

    /// How many signals have been counted.
    var count: Int { state.withLock { $0.count } }

    /// Returns once `count` signals have been counted, or when the task is cancelled.
    func wait(for count: Int) async {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    if state.count >= count || Task.isCancelled { return true }
                    state.waiters.append((id, count, continuation))
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume()
        }
    }
}
