import DatabaseTree
import EmulatorCore
import Testing

@testable import DatabaseEmulator

@Suite struct WireConnectionTests {
    @Test func listenSendsDataBeforeItsOk() async throws {
        let database = try makeDatabase()
        try database.write(.set(DatabasePath("/rooms/r1"), ["name": "x"]), auth: .admin)
        let client = WireClient(database)
        let request = client.send("q", ["p": "/rooms", "h": ""])
        let push = try await client.push()
        #expect(push.action == "d")
        #expect(push.body == ["p": "rooms", "d": ["r1": ["name": "x"]]])
        let ok = try await client.next()
        #expect(ok == ["t": "d", "d": ["r": .int(request), "b": ["s": "ok", "d": [:]]]])
    }

    @Test func writesReachOtherListenersAndTheWritersOwnBeforeItsAck() async throws {
        let database = try makeDatabase()
        let listener = WireClient(database)
        listener.send("q", ["p": "/rooms", "h": ""])
        #expect(try await listener.push().body["d"] == .null)
        _ = try await listener.response()
        let writer = WireClient(database)
        writer.send("q", ["p": "/rooms/r2", "h": ""])
        _ = try await writer.push()
        _ = try await writer.response()

        writer.send("p", ["p": "/rooms/r2", "d": ["t": [".sv": "timestamp"]]])
        let own = try await writer.push()
        #expect(own.body["p"] == "rooms/r2")
        #expect(own.body["d"]?["t"]?.intValue != nil)
        #expect(try await writer.response() == ["s": "ok", "d": ""])
        let other = try await listener.push()
        #expect(other.body["p"] == "rooms/r2")
    }

    @Test func mergeIsPassedOnAsAMerge() async throws {
        let database = try makeDatabase()
        let client = WireClient(database)
        client.send("q", ["p": "/a", "h": ""])
        _ = try await client.push()
        _ = try await client.response()
        client.send("m", ["p": "/a", "d": ["b/c": 1, "d": "x"]])
        let push = try await client.push()
        #expect(push.action == "m")
        #expect(push.body == ["p": "a", "d": ["b/c": 1, "d": "x"]])
        #expect(try await client.response()["s"] == "ok")
        #expect(database.root.exportJSON == ["a": ["b": ["c": 1], "d": "x"]])
    }

    @Test func staleTransactionHashIsRefused() async throws {
        let database = try makeDatabase()
        try database.write(.set(DatabasePath("/n"), 1), auth: .admin)
        let client = WireClient(database)
        let stale = DataNode(.number(2)).hash
        client.send("p", ["p": "/n", "d": 5, "h": .string(stale)])
        #expect(try await client.response()["s"] == "datastale")
        client.send("p", ["p": "/n", "d": 5, "h": .string(DataNode(.number(1)).hash)])
        #expect(try await client.response()["s"] == "ok")
        #expect(database.root.child("n").leaf == .number(5))
    }

    @Test func taggedQueryGetsItsWindowWithTheTag() async throws {
        let database = try makeDatabase()
        try database.write(.set(DatabasePath("/s"), ["a": ["v": 1], "b": ["v": 3], "c": ["v": 2]]), auth: .admin)
        let client = WireClient(database)
        client.send("q", ["p": "/s", "q": ["i": "v", "l": 2, "vf": "r"], "t": 1, "h": ""])
        let first = try await client.push()
        #expect(first.body == ["p": "s", "t": 1, "d": ["b": ["v": 3], "c": ["v": 2]]])
        #expect(try await client.response()["d"] == ["w": ["no_index"]])
        try database.write(.set(DatabasePath("/s/d"), ["v": 9]), auth: .admin)
        let second = try await client.push()
        #expect(second.body == ["p": "s", "t": 1, "d": ["b": ["v": 3], "d": ["v": 9]]])
    }

    @Test func onDisconnectWritesRunWhenTheConnectionGoes() async throws {
        let database = try makeDatabase()
        let client = WireClient(database)
        client.send("p", ["p": "/presence/u1", "d": ["online": true]])
        _ = try await client.response()
        client.send("o", ["p": "/presence/u1", "d": ["online": false, "lastSeen": [".sv": "timestamp"]]])
        #expect(try await client.response()["s"] == "ok")
        client.send("om", ["p": "/status", "d": ["u1": "gone", "u2": "gone"]])
        _ = try await client.response()
        client.send("oc", ["p": "/status/u2", "d": .null])
        _ = try await client.response()
        client.connection.close()
        let presence = database.root.node(at: DatabasePath("/presence/u1"))
        #expect(presence.child("online").leaf == .bool(false))
        #expect(presence.child("lastSeen").leaf != nil)
        #expect(database.root.child("status").exportJSON == ["u1": "gone"])
    }

    @Test func cancellingPartOfASetKeepsItsSiblings() {
        var queue = OnDisconnectQueue()
        queue.append(.set(DatabasePath("/a"), ["b": 1, "c": ["d": 2, "e": 3]]))
        queue.cancel(at: DatabasePath("/a/c/d"))
        guard case .update(let path, let entries)? = queue.writes.first else {
            Issue.record("expected an update")
            return
        }
        #expect(path == DatabasePath("/a"))
        #expect(Set(entries.map(\.0.description)) == ["/b", "/c/e"])
        queue.cancel(at: DatabasePath("/"))
        #expect(queue.writes.isEmpty)
    }

    @Test func rulesDecideListensAndWrites() async throws {
        let database = try makeDatabase(
            rules: #"{"rules": {"presence": {"$uid": {".read": "auth != null", ".write": "auth != null && auth.uid == $uid"}}}}"#)
        let client = WireClient(database)
        client.send("q", ["p": "/presence/u1", "h": ""])
        #expect(try await client.response() == ["s": "permission_denied", "d": "Permission denied"])
        client.send("auth", ["cred": .string(idToken("u1"))])
        let auth = try await client.response()
        #expect(auth["s"] == "ok")
        #expect(auth["d"]?["auth"]?["uid"] == "u1")
        client.send("p", ["p": "/presence/u2", "d": ["online": true]])
        #expect(try await client.response()["s"] == "permission_denied")
        client.send("o", ["p": "/presence/u2", "d": ["online": false]])
        #expect(try await client.response()["s"] == "permission_denied")
        client.send("p", ["p": "/presence/u1", "d": ["online": true]])
        #expect(try await client.response()["s"] == "ok")
        client.send("gauth", ["cred": "owner"])
        _ = try await client.response()
        client.send("g", ["p": "/", "q": [:]])
        #expect(try await client.response() == ["s": "ok", "d": ["presence": ["u1": ["online": true]]]])
    }

    @Test func badInputFailsTheRequestNotTheServer() async throws {
        let database = try makeDatabase()
        let client = WireClient(database)
        client.send("p", ["p": "/a", "d": ["b.c": 1]])
        #expect(try await client.response()["s"] == "invalid_data")
        client.send("zz", [:])
        #expect(try await client.response()["s"] == "invalid_request")
        #expect(database.root.isEmpty)
        #expect(client.connection.receive("{not json") == false)
    }

    @Test func framesSplitAndReassemble() {
        let message = String(repeating: "é😀x", count: 10_000)
        let frames = FrameAssembler.frames(of: message)
        #expect(frames.first == String(frames.count - 1))
        #expect(frames.dropFirst().allSatisfy { $0.utf16.count <= 16_384 })
        var assembler = FrameAssembler(limit: 1 << 20)
        #expect(assembler.receive("0") == .pending)
        var outcome = FrameAssembler.Outcome.pending
        for frame in frames { outcome = assembler.receive(frame) }
        #expect(outcome == .message(message))
        #expect(assembler.receive(#"{"t":"c"}"#) == .message(#"{"t":"c"}"#))
    }

    @Test func signingOutRevokesListensTheRulesNoLongerAllow() async throws {
        let database = try makeDatabase(rules: #"{"rules": {"private": {".read": "auth != null"}}}"#)
        let client = WireClient(database)
        client.send("auth", ["cred": .string(idToken("u1"))])
        _ = try await client.response()
        client.send("q", ["p": "/private", "h": ""])
        _ = try await client.push()
        #expect(try await client.response()["s"] == "ok")
        client.send("unauth", [:])
        let revoked = try await client.push()
        #expect(revoked.action == "c")
        #expect(revoked.body == ["p": "/private"])
        #expect(try await client.response()["s"] == "ok")
        try database.write(.set(DatabasePath("/private/x"), 1), auth: .admin)
        client.send("s", [:])
        #expect(try await client.response()["s"] == "ok")  // no push for the revoked listen came first
    }

    @Test func pathsDeeperThan32LevelsAreRefused() async throws {
        let database = try makeDatabase()
        let client = WireClient(database)
        let deep = String(repeating: "a/", count: 40)
        client.send("q", ["p": .string(deep), "h": ""])
        #expect(try await client.response()["s"] == "invalid_data")
        client.send("p", ["p": .string(String(repeating: "a/", count: 30)), "d": ["b": ["c": ["d": 1]]]])
        #expect(try await client.response()["s"] == "invalid_data")
        #expect(database.root.isEmpty)
    }
}
