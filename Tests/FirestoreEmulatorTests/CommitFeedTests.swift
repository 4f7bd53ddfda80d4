import Dispatch
import EmulatorCore
import Synchronization
import Testing

@testable import FirestoreEmulator

@Suite struct CommitFeedTests {
    let database = DatabaseName(project: "p", database: "(default)")

    private func write(_ id: String) -> Write {
        Write(path: DocumentPath(segments: ["rooms", id]), operation: .update(fields: ["n": .integer(1)]))
    }

    @Test func listenersGetCommitsInOrderAfterWhatTheySaw() async throws {
        let store = try FirestoreStore(clock: SystemClock())
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

    @Test func anImportReachesListenersAsOneCommitOfEveryDocumentItChanges() async throws {
        let store = try FirestoreStore(clock: SystemClock())
        _ = try store.commit(database, writes: [write("kept"), write("gone")]) { _, _, _ in }
        let (_, subscription, _) = try store.listen(database, subscribe: { $0.subscribe(database) }) { _ in 0 }
        try store.replace([
            database: [
                (DocumentPath(segments: ["rooms", "kept"]), ["n": .integer(2)]), (DocumentPath(segments: ["rooms", "new"]), [:]),
            ]
        ])
        for await entry in subscription.entries {
            let changes = Dictionary(uniqueKeysWithValues: entry.changes.map { ($0.path.description, $0) })
            #expect(changes.keys.sorted() == ["rooms/gone", "rooms/kept", "rooms/new"])
            #expect(changes["rooms/gone"]?.after == nil && changes["rooms/kept"]?.after?.fields == ["n": .integer(2)])
            #expect(changes["rooms/new"]?.before == nil && changes["rooms/new"]?.after?.updateTime == entry.commitTime)
            break
        }
    }

    @Test func aSubscriberGetsOnlyCommitsPublishedAfterItSubscribed() async throws {
        let feed = CommitFeed()
        let early = feed.subscribe(database)
        // Published before `late` subscribes, possibly handed out after: `late` must not see it.
        feed.publish(CommitFeed.Entry(commitTime: Timestamp(microseconds: 1), changes: []), to: database)
        let late = feed.subscribe(database)
        feed.publish(CommitFeed.Entry(commitTime: Timestamp(microseconds: 2), changes: []), to: database)
        var earlyTimes: [Timestamp] = []
        for await entry in early.entries {
            earlyTimes.append(entry.commitTime)
            if earlyTimes.count == 2 { break }
        }
        var lateTimes: [Timestamp] = []
        for await entry in late.entries {
            lateTimes.append(entry.commitTime)
            break
        }
        #expect(earlyTimes == [Timestamp(microseconds: 1), Timestamp(microseconds: 2)])
        #expect(lateTimes == [Timestamp(microseconds: 2)])
    }

    @Test func aSmallBacklogLosesAndReordersNothing() async throws {
        let feed = CommitFeed(backlog: 2)
        let subscription = feed.subscribe(database)
        let publisher = Task.detached {
            for micros in 1...200 {
                feed.publish(CommitFeed.Entry(commitTime: Timestamp(microseconds: Int64(micros)), changes: []), to: database)
            }
        }
        var times: [Timestamp] = []
        for await entry in subscription.entries {
            times.append(entry.commitTime)
            if times.count == 200 { break }
        }
        await publisher.value
        #expect(times == (1...200).map { Timestamp(microseconds: Int64($0)) })
    }

    @Test func publishingNeverWaitsAndWritersWaitForRoom() async throws {
        let feed = CommitFeed(backlog: 2)
        let subscription = feed.subscribe(database)
        let gate = DispatchSemaphore(value: 0)
        // The fan-out is stuck until the gate opens: a subscriber of another database takes a commit slowly.
        let other = DatabaseName(project: "q", database: "(default)")
        _ = feed.subscribe(
            other,
            sink: { _ in
                gate.wait()
                return true
            })
        feed.publish(CommitFeed.Entry(commitTime: Timestamp(microseconds: 0), changes: []), to: other)
        for micros in 1...5 {
            // Under the store's lock in real use: returns although the backlog is full.
            feed.publish(CommitFeed.Entry(commitTime: Timestamp(microseconds: Int64(micros)), changes: []), to: database)
        }
        let writer = Task.detached { feed.waitForRoom() }
        try await Task.sleep(for: .milliseconds(50))
        gate.signal()
        await writer.value  // room once the fan-out moves on
        var times: [Timestamp] = []
        for await entry in subscription.entries {
            times.append(entry.commitTime)
            if times.count == 5 { break }
        }
        #expect(times == (1...5).map { Timestamp(microseconds: Int64($0)) })
    }

    @Test func afterPublishedRunsAtOnceWhenNothingIsOnItsWay() async throws {
        let feed = CommitFeed()
        let ran = Atomic<Bool>(false)
        feed.afterPublished { ran.store(true, ordering: .relaxed) }
        let ranAtOnce = ran.load(ordering: .relaxed)
        #expect(ranAtOnce, "nothing published: no hop")
        // With a commit on its way to a subscriber, the action waits until it has been handed out.
        let gate = DispatchSemaphore(value: 0)
        let handed = Atomic<Bool>(false)
        _ = feed.subscribe(database, sink: { _ in
            gate.wait()
            handed.store(true, ordering: .sequentiallyConsistent)
            return true
        })
        feed.publish(CommitFeed.Entry(commitTime: Timestamp(microseconds: 1), changes: []), to: database)
        let after = Atomic<Bool>(false)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            feed.afterPublished {
                after.store(handed.load(ordering: .sequentiallyConsistent), ordering: .relaxed)
                continuation.resume()
            }
            gate.signal()
        }
        let ranAfter = after.load(ordering: .relaxed)
        #expect(ranAfter, "the action ran after the commit was handed out")
    }

    @Test func aSubscriberThatFallsBehindIsCutOffAlone() async throws {
        let feed = CommitFeed(limit: 2)
        let slow = feed.subscribe(database)
        let other = feed.subscribe(DatabaseName(project: "q", database: "(default)"))
        for micros in 1...3 {
            feed.publish(CommitFeed.Entry(commitTime: Timestamp(microseconds: Int64(micros)), changes: []), to: database)
        }
        // All three offered before the subscriber reads one.
        await withCheckedContinuation { continuation in feed.afterPublished { continuation.resume() } }
        var count = 0
        for await _ in slow.entries { count += 1 }
        #expect(count == 2 && slow.takeOverflow())
        #expect(!other.takeOverflow())
    }
}
