import EmulatorCore
@testable import HearthTesting
import Testing

/// `DatabaseClient` against `FakeDatabaseServer`, for what the emulator never does.
extension DatabaseClientTests {
    @Test func waitsForTheServerEndAtTheirDeadlines() async throws {
        let deadlines = DatabaseConnection.Deadlines(hello: .milliseconds(100), response: .milliseconds(100))
        try await FakeDatabaseServer.run(serving: { try await $0.ignoreAll() }) { address in
            let silent = await #expect(throws: ClientError.self) {
                try await Self.within(.seconds(5)) { try await Self.connect(address, deadlines: deadlines) }
            }
            #expect(silent?.code == .deadlineExceeded)
        }
        // The hello does come here: only the responses' deadline is short (a loaded machine may take more
        // than 100 ms to deliver the hello).
        let responseOnly = DatabaseConnection.Deadlines(hello: .seconds(10), response: .milliseconds(100))
        try await FakeDatabaseServer.run(serving: Self.helloThenSilence) { address in
            let client = try await Self.connect(address, deadlines: responseOnly)
            let write = await #expect(throws: ClientError.self) {
                try await Self.within(.seconds(5)) { try await client.reference("a").setValue(1) }
            }
            #expect(write?.code == .deadlineExceeded)
            let onDisconnect = await #expect(throws: ClientError.self) {
                try await Self.within(.seconds(5)) { try await client.reference("a").onDisconnectRemoveValue() }
            }
            #expect(onDisconnect?.code == .deadlineExceeded)
            await client.disconnect()
        }
    }

    @Test func cancellingTheWaitingTaskEndsItsWait() async throws {
        let (connections, connected) = AsyncStream.makeStream(of: Void.self)
        try await FakeDatabaseServer.run(serving: { peer in
            connected.yield()
            try await peer.ignoreAll()
        }) { address in
            let connecting = Task { try await Self.connect(address) }
            var arrivals = connections.makeAsyncIterator()
            await arrivals.next()
            connecting.cancel()
            let error = await #expect(throws: ClientError.self) {
                try await Self.within(.seconds(5)) { try await connecting.value }
            }
            #expect(error?.code == .cancelled)
        }

        let (requests, received) = AsyncStream.makeStream(of: String.self)
        try await FakeDatabaseServer.run(serving: { peer in
            try await peer.sayHello()
            while let request = try await peer.next() { received.yield(request["d"]?["a"]?.stringValue ?? "") }
        }) { address in
            let client = try await Self.connect(address)
            let reading = Task { try await client.reference("a").getData() }
            var arrivals = requests.makeAsyncIterator()
            #expect(await arrivals.next() == "g")
            reading.cancel()
            let error = await #expect(throws: ClientError.self) {
                try await Self.within(.seconds(5)) { try await reading.value }
            }
            #expect(error?.code == .cancelled)
            await client.disconnect()
        }
    }

    @Test func theServerShuttingTheConnectionClosesIt() async throws {
        let (closes, closed) = AsyncStream.makeStream(of: Void.self)
        try await FakeDatabaseServer.run(serving: { peer in
            try await peer.sayHello()
            try await peer.send(["t": "c", "d": ["t": "s", "d": "Going away"]])
            try await peer.ignoreAll()
            closed.yield()
        }) { address in
            let client = try await Self.connect(address)
            try await Self.within(.seconds(5)) {
                for await _ in closes { return }
            }
            let error = await #expect(throws: ClientError.self) { try await client.reference("a").setValue(1) }
            #expect(error?.code == .unavailable && error?.message.contains("Going away") == true)
        }
    }

    @Test func dataTheClientCannotStoreEndsTheListensItWasFor() async throws {
        try await FakeDatabaseServer.run(serving: Self.echo) { address in
            let client = try await Self.connect(address)
            var room = client.reference("rooms/r1").snapshots().makeAsyncIterator()
            var other = client.reference("other").snapshots().makeAsyncIterator()
            #expect(try await room.next()?.exists == false)
            #expect(try await other.next()?.exists == false)

            try await client.reference("rooms/r1/name").setValue(["bad.key": 1])  // echoed back as a push
            try await client.reference("rooms/r1/name").setValue("fine")
            let ended = await #expect(throws: ClientError.self) { _ = try await room.next() }
            #expect(ended?.code == .internal && ended?.message.contains("/rooms/r1/name") == true)
            try await client.reference("other").setValue("still listening")
            #expect(try await other.next()?.value == "still listening")

            let read = await #expect(throws: ClientError.self) { _ = try await client.reference("rooms").getData() }
            #expect(read?.code == .internal && read?.message.contains("/rooms") == true)
            await client.disconnect()
        }
    }

    // MARK: - Support

    /// Connects to a fake server, unauthenticated (no request before the first operation).
    static func connect(
        _ address: EmulatorAddress, deadlines: DatabaseConnection.Deadlines = .init()
    ) async throws -> DatabaseClient {
        try await DatabaseClient.connect(
            address: address, namespace: namespace, identity: .unauthenticated, deadlines: deadlines)
    }

    /// Says hello, then never answers.
    @Sendable static func helloThenSilence(_ peer: inout FakeDatabaseServer.Peer) async throws {
        try await peer.sayHello()
        try await peer.ignoreAll()
    }

    /// A database that stores nothing: a listen starts empty, a write comes back as a push of what was
    /// written (whatever it is), a read finds `{"bad.key": 1}`. Every request is answered `ok`.
    @Sendable static func echo(_ peer: inout FakeDatabaseServer.Peer) async throws {
        try await peer.sayHello()
        while let request = try await peer.next(), let message = request["d"], let body = message["b"] {
            var data: JSONValue = [:]
            switch message["a"]?.stringValue {
            case "p":
                let written: JSONValue = ["p": body["p"] ?? "", "d": body["d"] ?? .null]
                try await peer.send(["t": "d", "d": ["a": "d", "b": written]])
            case "g": data = ["bad.key": 1]
            default: break
            }
            try await peer.send(["t": "d", "d": ["r": message["r"] ?? 0, "b": ["s": "ok", "d": data]]])
        }
    }
}
