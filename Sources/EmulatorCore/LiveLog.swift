import Foundation
import Synchronization

/// An entry of a `LiveLog`: numbered by the log when recorded, and rendered for the UI API.
public protocol LiveLogEntry: Sendable {
    /// Its place in the log (from 1, increasing); the log sets it.
    var id: Int { get set }
    /// The entry as the UI API answers it.
    var json: JSONValue { get }
}

/// A log the Emulator UI follows live (its Requests and Logs pages), newest last.
///
/// Recording never waits: entries go into a bounded ring (`capacity`), and each follower gets them through
/// its own bounded buffer, so a slow browser tab loses entries of its own and slows nothing else.
public final class LiveLog<Entry: LiveLogEntry>: Sendable {
    private struct State {
        var entries: [Entry] = []
        var nextID = 1
        var followers: [Int: AsyncStream<Entry>.Continuation] = [:]
        var nextFollower = 0
    }

    /// How many entries are kept.
    public let capacity: Int
    private let state = Mutex(State())

    /// An empty log keeping the newest `capacity` entries.
    public init(capacity: Int = 2000) {
        self.capacity = capacity
    }

    /// Adds `entry`, numbered after the last one, and hands it to every follower.
    public func record(_ entry: Entry) {
        state.withLock { state in
            var entry = entry
            entry.id = state.nextID
            state.nextID += 1
            state.entries.append(entry)
            if state.entries.count > capacity + capacity / 4 { state.entries.removeFirst(state.entries.count - capacity) }
            for follower in state.followers.values { follower.yield(entry) }
        }
    }

    /// The entries kept whose id is greater than `id`, oldest first.
    public func entries(after id: Int = 0) -> [Entry] {
        state.withLock { state in Array(state.entries.drop { $0.id <= id }.suffix(capacity)) }
    }

    /// The entry numbered `id`, if it is still kept.
    public func entry(_ id: Int) -> Entry? {
        state.withLock { state in state.entries.last { $0.id == id } }
    }

    /// The entries kept, then every new one as it is recorded; a follower that falls `buffer` entries behind
    /// loses the oldest of them. The stream ends when its consumer stops reading it.
    public func follow(buffer: Int = 500) -> AsyncStream<Entry> {
        let (stream, continuation) = AsyncStream.makeStream(of: Entry.self, bufferingPolicy: .bufferingNewest(buffer))
        let key = state.withLock { state in
            for entry in state.entries.suffix(capacity) { continuation.yield(entry) }
            let key = state.nextFollower
            state.nextFollower += 1
            state.followers[key] = continuation
            return key
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.followers.removeValue(forKey: key) }
        }
        return stream
    }

    /// Forgets every entry (the numbering goes on).
    public func clear() {
        state.withLock { $0.entries.removeAll() }
    }
}
