import EmulatorCore
import Testing

@testable import FirestoreEmulator

@Suite struct CommitFeedTests {
    let database = DatabaseName(project: "p", database: "(default)")

    private func write(_ id: String) -> Write {
        Write(path: DocumentPath(segments: ["rooms", id]), operation: .update(fields: ["n": .integer(1)]))
    }

    @Test func listenersGetCommitsInOrderAfterWhatTheySaw() async throws {
        let store = FirestoreStore(clock: SystemClock())
        _ = try store.commit(database, writes: [write("before")]) { _, _, _ in }
        let (count, subscription, readTime) = try store.listen(database, subscribe: { $0.subscribe(database) }) { view in
            view.state.documentCount
        }
        #expect(count == 1)
        let first = try store.commit(database, writes: [write("a")]) { _, _, _ in }
        let second = try store.commit(database, writes: [write("b"), write("c")]) { _, _, _ in }
        _ = try store.commit(database, writes: [write("b")]) { _, _, _ in }  // changes nothing: not published
        var received: [CommitFeed.Entry] = []
        for await entry in subscription.entries {
            received.append(entry)
            if received.count == 2 { break }
        }
        #expect(received.map(\.commitTime) == [first.commitTime, second.commitTime])
        #expect(received[1].changes.map(\.path.description) == ["rooms/b", "rooms/c"])
        #expect(readTime < first.commitTime)
    }

    @Test func aSubscriberThatFallsBehindIsCutOffAlone() async throws {
        let feed = CommitFeed(limit: 2)
        let slow = feed.subscribe(database)
        let other = feed.subscribe(DatabaseName(project: "q", database: "(default)"))
        for micros in 1...3 {
            feed.publish(CommitFeed.Entry(commitTime: Timestamp(microseconds: Int64(micros)), changes: []), to: database)
        }
        var count = 0
        for await _ in slow.entries { count += 1 }
        #expect(count == 2 && slow.takeOverflow())
        #expect(!other.takeOverflow())
    }
}
