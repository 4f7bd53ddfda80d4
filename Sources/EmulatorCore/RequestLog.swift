import Foundation
import Synchronization

/// The rules decisions of every emulator, newest last, for the Emulator UI's Requests page: the suite gives
/// one log to each emulator it runs with the UI, and the UI reads and follows it.
///
/// Recording never waits: entries go into a bounded ring (`capacity`), and each follower gets them through
/// its own bounded buffer, so a slow browser tab loses entries of its own and slows nothing else.
public final class RequestLog: Sendable {
    /// One decision.
    public struct Entry: Sendable {
        /// Its place in the log (from 1, increasing).
        public var id: Int
        /// When it was decided.
        public var time: Date
        /// `firestore`, `storage` or `database`.
        public var service: String
        /// The rules method (`get`, `list`, `create`, `update`, `delete`, `read`, `write`, ...).
        public var method: String
        /// The path the rules saw.
        public var path: String
        /// The caller's uid, or nil when unauthenticated.
        public var uid: String?
        /// Whether the rules allowed it.
        public var allowed: Bool
        /// Why, in a line per statement considered (`firestore.rules:7:7 allow read: false`).
        public var explanation: String
        /// The rules files and the value each expression took in this decision, built when asked for
        /// (`{"rules": {"files": [{name, content}]}, "report": [...]}`, the coverage report's shape).
        public var detail: @Sendable () -> JSONValue

        /// Creates an entry; the log gives it its `id` when it is recorded.
        public init(
            service: String, method: String, path: String, uid: String?, allowed: Bool, explanation: String,
            time: Date = Date(), detail: @escaping @Sendable () -> JSONValue = { [:] }
        ) {
            self.id = 0
            self.time = time
            self.service = service
            self.method = method
            self.path = path
            self.uid = uid
            self.allowed = allowed
            self.explanation = explanation
            self.detail = detail
        }

        /// The entry as the UI API answers it (without the detail).
        public var json: JSONValue {
            [
                "id": .int(Int64(id)), "time": .string(time.iso8601WithMilliseconds), "service": .string(service),
                "method": .string(method), "path": .string(path), "uid": uid.map(JSONValue.string) ?? .null,
                "allowed": .bool(allowed), "explanation": .string(explanation),
            ]
        }
    }

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
