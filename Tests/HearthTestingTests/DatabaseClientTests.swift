import EmulatorCore
import Foundation
import NIOHTTP1
@testable import HearthTesting
import Suite
import Testing

/// `DatabaseClient` over the wire protocol against a real database emulator on free ports, each test with
/// its own suite.
@Suite(.timeLimit(.minutes(1))) struct DatabaseClientTests {
    static let namespace = "demo-kit-default-rtdb"
    static let alice = ClientIdentity.user("alice", projectID: "demo-kit")
    static let bob = ClientIdentity.user("bob", projectID: "demo-kit")

    /// The chat app's presence rules: signed-in users read anyone's entry and write only their own.
    static let presenceRules = """
        {
          "rules": {
            "presence": {
              "$userId": {
                ".read": "auth != null",
                ".write": "auth != null && auth.uid == $userId"
              }
            }
          }
        }
        """

    @Test func setGetUpdateRemoveAndPushRoundTrip() async throws {
        try await withDatabase { address in
            let client = try await Self.connect(address, as: .admin)
            let room = client.reference("/rooms//r1/")
            #expect(room.path == "/rooms/r1" && room.key == "r1")
            #expect(room.parent?.path == "/rooms" && room.parent?.parent?.path == "/")
            #expect(client.reference().key == nil && client.reference().parent == nil)

            try await room.setValue(["name": "General", "members": ["alice": true], "size": .double(2.5)])
            let read = try await room.getData()
            #expect(read.value == ["name": "General", "members": ["alice": true], "size": .double(2.5)])
            #expect(read.exists && read.key == "r1" && read.path == "/rooms/r1")
            let alice = read.child("members/alice")
            #expect(alice.value == true && alice.path == "/rooms/r1/members/alice" && alice.key == "alice")

            try await room.updateChildValues(["name": "Lobby", "members/bob": true, "members/alice": nil])
            #expect(try await room.getData().value == ["name": "Lobby", "members": ["bob": true], "size": .double(2.5)])

            let messages = room.child("messages")
            let first = messages.childByAutoId()
            let second = messages.childByAutoId()
            let (firstKey, secondKey) = (try #require(first.key), try #require(second.key))
            #expect(firstKey.count == 20 && firstKey < secondKey)
            try await second.setValue(["text": "there"])
            try await first.setValue(["text": "hi"])
            let pushed = try await messages.getData()
            #expect(pushed.children.map(\.key) == [firstKey, secondKey])
            #expect(pushed.children.map { $0.child("text").value } == ["hi", "there"])

            try await room.child("name").removeValue()
            #expect(try await room.child("name").getData().exists == false)
            try await room.removeValue()
            let gone = try await room.getData()
            #expect(!gone.exists && gone.value == .null)

            let refused = await #expect(throws: ClientError.self) { try await room.child("bad.key").setValue(1) }
            #expect(refused?.code == .invalidArgument)
            await client.disconnect()
        }
    }

    @Test func listenerSeesTheInitialValueThenEachChangeFromAnotherClient() async throws {
        try await withDatabase { address in
            let writer = try await Self.connect(address, as: .admin)
            let reader = try await Self.connect(address, as: .admin)
            let chat = writer.reference("chat")
            try await chat.setValue(["a": 1, "b": ["c": 2, "d": 3]])
            var updates = reader.reference("chat").snapshots().makeAsyncIterator()
            #expect(try await updates.next()?.value == ["a": 1, "b": ["c": 2, "d": 3]])

            try await chat.updateChildValues(["b/c": nil, "e": "x"])  // a merge, deleting with null
            #expect(try await updates.next()?.value == ["a": 1, "b": ["d": 3], "e": "x"])
            try await chat.child("b/d").removeValue()  // a write below the listen; `b` goes with its last child
            #expect(try await updates.next()?.value == ["a": 1, "e": "x"])
            try await writer.reference().updateChildValues(["chat/e": nil, "chat/a": 5, "elsewhere": 1])  // above it
            #expect(try await updates.next()?.value == ["a": 5])
            try await writer.reference("elsewhere").setValue(2)  // outside it: nothing to see
            try await chat.child("list").setValue(["zero", "one"])
            let withList = try #require(try await updates.next())
            #expect(withList.value == ["a": 5, "list": ["zero", "one"]])

            // A second stream of the same location starts from what the connection has.
            var again = reader.reference("chat").snapshots().makeAsyncIterator()
            #expect(try await again.next()?.value == withList.value)
            try await chat.removeValue()
            #expect(try await updates.next()?.exists == false)
            #expect(try await again.next()?.exists == false)

            // A stream that is dropped stops listening; a new one listens afresh.
            do {
                var dropped = reader.reference("chat").snapshots().makeAsyncIterator()
                _ = try await dropped.next()
            }
            updates = reader.reference("fresh").snapshots().makeAsyncIterator()
            #expect(try await updates.next()?.value == .null)
            try await writer.reference("fresh").setValue("new")
            #expect(try await updates.next()?.value == "new")
            await writer.disconnect()
            await reader.disconnect()
        }
    }

    @Test func queryListenersKeepTheirWindow() async throws {
        try await withDatabase { address in
            let writer = try await Self.connect(address, as: .admin)
            let reader = try await Self.connect(address, as: .admin)
            let scores = writer.reference("scores")
            try await scores.setValue(["a": ["s": 1], "b": ["s": 2], "c": ["s": 3]])
            let byScore = DatabaseQuery(orderedBy: .child("s"))
            var top = reader.reference("scores").snapshots(byScore.limited(toLast: 2)).makeAsyncIterator()
            let initial = try #require(try await top.next())
            #expect(initial.value == ["b": ["s": 2], "c": ["s": 3]])
            #expect(initial.children.map(\.key) == ["b", "c"])

            try await scores.child("d").setValue(["s": 4])
            #expect(try await top.next()?.value == ["c": ["s": 3], "d": ["s": 4]])
            try await scores.child("c").removeValue()
            #expect(try await top.next()?.value == ["b": ["s": 2], "d": ["s": 4]])  // b comes back
            try await scores.child("a").setValue(["s": 0])  // outside the window: no snapshot
            try await scores.child("e").setValue(["s": 5])
            #expect(try await top.next()?.children.map(\.key) == ["d", "e"])

            var fives = reader.reference("scores").snapshots(byScore.equal(toValue: 5)).makeAsyncIterator()
            #expect(try await fives.next()?.value == ["e": ["s": 5]])
            var fromB = reader.reference("scores").snapshots(
                DatabaseQuery(orderedBy: .key).starting(atValue: "b").ending(atValue: "d")
            ).makeAsyncIterator()
            #expect(try await fromB.next()?.value == ["b": ["s": 2], "d": ["s": 4]])
            var ordered = reader.reference("scores").snapshots(byScore).makeAsyncIterator()  // loads all data
            #expect(try await ordered.next()?.children.map(\.key) == ["a", "b", "d", "e"])
            await writer.disconnect()
            await reader.disconnect()
        }
    }

    @Test func serverValuesAreResolvedByTheServer() async throws {
        try await withDatabase { address in
            let client = try await Self.connect(address, as: .admin)
            let stats = client.reference("stats")
            let before = Date().millisecondsSince1970
            try await stats.setValue(["at": ServerValue.timestamp, "count": ServerValue.increment(2)])
            try await stats.child("count").setValue(ServerValue.increment(3))
            try await stats.child("ratio").setValue(ServerValue.increment(0.5))
            let read = try await stats.getData()
            let at = try #require(read.child("at").value.intValue)
            #expect(at >= before && at <= Date().millisecondsSince1970)
            #expect(read.child("count").value == 5)
            #expect(read.child("ratio").value == .double(0.5))
            await client.disconnect()
        }
    }

    @Test func interruptRunsOnDisconnectForOtherListeners() async throws {
        try await withDatabase(rules: Self.presenceRules) { address in
            let alice = try await Self.connect(address, as: Self.alice)
            let bob = try await Self.connect(address, as: Self.bob)
            let presence = alice.reference("presence/alice")
            try await presence.setValue(["online": true, "lastSeen": ServerValue.timestamp])
            try await presence.onDisconnectSetValue(["online": false, "lastSeen": ServerValue.timestamp])
            var watched = bob.reference("presence/alice").snapshots().makeAsyncIterator()
            #expect(try await watched.next()?.child("online").value == true)

            let before = Date().millisecondsSince1970
            await alice.interrupt()
            let offline = try #require(try await watched.next())
            #expect(offline.child("online").value == false)
            #expect(try #require(offline.child("lastSeen").value.intValue) >= before)

            let closed = await #expect(throws: ClientError.self) { try await presence.setValue(["online": true]) }
            #expect(closed?.code == .unavailable)
            await alice.interrupt()
            await bob.disconnect()
        }
    }

    @Test func cancelledOnDisconnectOperationsDoNotRun() async throws {
        try await withDatabase { address in
            let leaving = try await Self.connect(address, as: .admin)
            let watcher = try await Self.connect(address, as: .admin)
            let status = leaving.reference("status/a")
            try await status.setValue(["online": true, "room": "r1"])
            try await status.onDisconnectSetValue(["online": false])
            try await status.child("room").onDisconnectRemoveValue()
            try await status.cancelDisconnectOperations()
            // Runs with the rest of the queue, after what was cancelled would have.
            try await leaving.reference("left/a").onDisconnectSetValue(true)
            var left = watcher.reference("left/a").snapshots().makeAsyncIterator()
            #expect(try await left.next()?.exists == false)

            await leaving.interrupt()
            #expect(try await left.next()?.value == true)
            #expect(try await watcher.reference("status/a").getData().value == ["online": true, "room": "r1"])
            await watcher.disconnect()
        }
    }

    @Test func disconnectSaysGoodbyeAndStillRunsOnDisconnect() async throws {
        try await withDatabase { address in
            let leaving = try await Self.connect(address, as: .admin)
            let watcher = try await Self.connect(address, as: .admin)
            try await leaving.reference().setValue([
                "rooms": ["r1": ["members": ["a": true], "typing": ["a": true]]], "drafts": ["a": "hey"],
            ])
            try await leaving.reference("rooms/r1").onDisconnectUpdateChildValues(["typing/a": nil, "members/a": false])
            try await leaving.reference("drafts/a").onDisconnectRemoveValue()
            try await leaving.reference("presence/a").onDisconnectSetValue([
                "online": false, "lastSeen": ServerValue.timestamp,
            ])
            var own = leaving.reference("rooms").snapshots().makeAsyncIterator()
            _ = try await own.next()
            var watched = watcher.reference("presence/a").snapshots().makeAsyncIterator()
            #expect(try await watched.next()?.exists == false)

            await leaving.disconnect()
            let offline = try #require(try await watched.next())
            #expect(offline.child("online").value == false && offline.child("lastSeen").value.intValue != nil)
            let after = try await watcher.reference().getData()
            #expect(after.child("rooms").value == ["r1": ["members": ["a": false]]])
            #expect(after.child("drafts").exists == false)

            let ended = await #expect(throws: ClientError.self) { _ = try await own.next() }
            #expect(ended?.code == .unavailable)
            await leaving.disconnect()  // again: nothing to do
            let closed = await #expect(throws: ClientError.self) { _ = try await leaving.reference("x").getData() }
            #expect(closed?.code == .unavailable)
            var late = leaving.reference("x").snapshots().makeAsyncIterator()
            await #expect(throws: ClientError.databaseDisconnected) { _ = try await late.next() }
            await watcher.disconnect()
        }
    }

    @Test func rulesRefusalsArePermissionDenied() async throws {
        try await withDatabase(rules: Self.presenceRules) { address in
            let alice = try await Self.connect(address, as: Self.alice)
            try await alice.reference("presence/alice").setValue(["online": true])
            let write = await #expect(throws: ClientError.self) {
                try await alice.reference("presence/bob").setValue(["online": true])
            }
            #expect(write?.code == .permissionDenied && write?.message == "Permission denied")
            let onDisconnect = await #expect(throws: ClientError.self) {
                try await alice.reference("presence/bob").onDisconnectSetValue(["online": false])
            }
            #expect(onDisconnect?.code == .permissionDenied)
            let read = await #expect(throws: ClientError.self) { _ = try await alice.reference("presence").getData() }
            #expect(read?.code == .permissionDenied)

            let stranger = try await Self.connect(address, as: .unauthenticated)
            var denied = stranger.reference("presence/alice").snapshots().makeAsyncIterator()
            let listen = await #expect(throws: ClientError.self) { _ = try await denied.next() }
            #expect(listen?.code == .permissionDenied)
            await alice.disconnect()
            await stranger.disconnect()
        }
    }

    @Test func listensRevokedByNewRulesEndWithPermissionDenied() async throws {
        try await withDatabase(rules: Self.presenceRules) { address in
            let bob = try await Self.connect(address, as: Self.bob)
            var plain = bob.reference("presence/alice").snapshots().makeAsyncIterator()
            var query = bob.reference("presence/alice").snapshots(DatabaseQuery(orderedBy: .key).limited(toFirst: 1))
                .makeAsyncIterator()
            #expect(try await plain.next()?.exists == false)
            #expect(try await query.next()?.exists == false)

            try await Self.setRules(#"{"rules": {".read": false, ".write": false}}"#, at: address)
            let revoked = await #expect(throws: ClientError.self) { _ = try await plain.next() }
            #expect(revoked?.code == .permissionDenied)
            let revokedQuery = await #expect(throws: ClientError.self) { _ = try await query.next() }
            #expect(revokedQuery?.code == .permissionDenied)
            await bob.disconnect()
        }
    }

    @Test func messagesLongerThanAFrameAreSplitBothWays() async throws {
        try await withDatabase { address in
            let writer = try await Self.connect(address, as: .admin)
            let reader = try await Self.connect(address, as: .admin)
            let long = String(repeating: "é", count: 20_000) + String(repeating: "x", count: 30_000) + "🔥"
            var updates = reader.reference("long").snapshots().makeAsyncIterator()
            #expect(try await updates.next()?.exists == false)
            try await writer.reference("long").setValue(["text": .string(long)])
            #expect(try await updates.next()?.child("text").value == .string(long))
            #expect(try await writer.reference("long/text").getData().value == .string(long))
            await writer.disconnect()
            await reader.disconnect()
        }
    }

    @Test func aDroppedClientClosesItsConnectionUnlessAStreamKeepsIt() async throws {
        try await withDatabase { address in
            let watcher = try await Self.connect(address, as: .admin)
            try await Self.goOnlineThenDrop(address)
            let presence = watcher.reference("presence/a")
            let offline = try await Self.within(.seconds(5)) {
                for try await snapshot in presence.snapshots() where snapshot.value == "offline" { return true }
                return false
            }
            #expect(offline)

            var kept = try await Self.snapshotsOfADroppedClient(address, at: "kept").makeAsyncIterator()
            #expect(try await kept.next()?.exists == false)
            try await watcher.reference("kept").setValue(1)
            #expect(try await kept.next()?.value == 1)
            await watcher.disconnect()
        }
    }

    // MARK: - Support

    /// Connects, goes online at `presence/a` (`offline` on disconnect) and drops the client.
    static func goOnlineThenDrop(_ address: EmulatorAddress) async throws {
        let client = try await connect(address, as: .admin)
        try await client.reference("presence/a").setValue("online")
        try await client.reference("presence/a").onDisconnectSetValue("offline")
    }

    /// The snapshots of `path` from a client nobody else keeps.
    static func snapshotsOfADroppedClient(
        _ address: EmulatorAddress, at path: String
    ) async throws -> AsyncThrowingStream<DataSnapshot, any Error> {
        try await connect(address, as: .admin).reference(path).snapshots()
    }

    /// What `body` returns, or `TimedOut` once `limit` passed: then the body is cancelled and left running,
    /// so that a wait deaf to cancellation fails the test instead of hanging it.
    static func within<T: Sendable>(
        _ limit: Duration, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let (results, continuation) = AsyncStream.makeStream(of: Result<T, any Error>.self)
        let work = Task {
            do {
                continuation.yield(.success(try await body()))
            } catch {
                continuation.yield(.failure(error))
            }
        }
        let timer = Task {
            try await Task.sleep(for: limit)
            continuation.yield(.failure(TimedOut()))
        }
        defer {
            work.cancel()
            timer.cancel()
        }
        for await result in results { return try result.get() }
        throw TimedOut()
    }

    /// A wait that took too long.
    struct TimedOut: Error {}

    /// Connects to the test's database.
    static func connect(_ address: EmulatorAddress, as identity: ClientIdentity) async throws -> DatabaseClient {
        try await DatabaseClient.connect(address: address, namespace: namespace, identity: identity)
    }

    /// Runs `body` with a suite running only the database emulator (project `demo-kit`, free ports), its
    /// rules set to `rules` when given (else open).
    func withDatabase(rules: String? = nil, _ body: (EmulatorAddress) async throws -> Void) async throws {
        var config = SuiteConfig(projectID: "demo-kit")
        try config.apply(only: ["database"], project: nil, host: nil, ports: ["database=0", "hub=0"])
        let suite = try Suite(config: config)
        try await suite.start()
        do {
            let address = EmulatorAddress(host: "127.0.0.1", port: try #require(suite.emulator(.database)).port)
            if let rules { try await Self.setRules(rules, at: address) }
            try await body(address)
        } catch {
            await suite.stop()
            throw error
        }
        await suite.stop()
    }

    /// Loads `rules` as firebase-tools and rules-unit-testing do (`PUT /.settings/rules.json`).
    static func setRules(_ rules: String, at address: EmulatorAddress) async throws {
        _ = try await HTTPExchange.send(
            .PUT, "\(address.baseURL)/.settings/rules.json?ns=\(namespace)",
            headers: [("Authorization", "Bearer owner")], body: Data(rules.utf8)
        ).checked()
    }
}
