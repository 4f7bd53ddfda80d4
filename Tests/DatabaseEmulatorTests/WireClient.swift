import DatabaseRules
import DatabaseTree
import EmulatorCore
import Logging

@testable import DatabaseEmulator

/// A wire protocol client without a socket: sends envelopes to a `WireConnection` and reads what it
/// queues, rendered as the WebSocket writer would.
final class WireClient {
    let connection: WireConnection
    private var iterator: AsyncStream<WireStateMachine.Outgoing>.AsyncIterator
    private var nextRequest: Int64 = 1

    init(_ database: Database) {
        connection = WireConnection(database: database)
        iterator = connection.outbox.items.makeAsyncIterator()
    }

    /// Sends a data request; returns its request number.
    @discardableResult
    func send(_ action: String, _ body: JSONValue) -> Int64 {
        let request = nextRequest
        nextRequest += 1
        let envelope: JSONValue = ["t": "d", "d": ["r": .int(request), "a": .string(action), "b": body]]
        _ = connection.receive(envelope.serialized())
        return request
    }

    /// The next queued message, parsed.
    func next() async throws -> JSONValue {
        guard let item = await iterator.next() else { return .null }
        connection.outbox.taken()
        return try JSONValue.parse(WireStateMachine.render(item))
    }

    /// The next message, which must be a response; returns its body (`s`, `d`).
    func response() async throws -> JSONValue {
        let message = try await next()
        return message["d"]?["b"] ?? .null
    }

    /// The next message, which must be a push; returns its action and body.
    func push() async throws -> (action: String, body: JSONValue) {
        let message = try await next()
        return (message["d"]?["a"]?.stringValue ?? "", message["d"]?["b"] ?? .null)
    }
}

/// A database with `rules` (open by default), for one test.
func makeDatabase(rules: String = #"{"rules": {".read": true, ".write": true}}"#) throws -> Database {
    Database(name: "test", rules: try DatabaseRuleSet(source: rules), clock: SystemClock())
}

/// An unsigned ID token for `uid`, as the Auth emulator mints them.
func idToken(_ uid: String) -> String {
    UnsignedJWT(payload: ["sub": .string(uid), "user_id": .string(uid), "iat": 1, "exp": 4_000_000_000]).encoded
}
