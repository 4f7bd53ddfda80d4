import DatabaseTree
import EmulatorCore
import Testing

@testable import DatabaseEmulator

/// The wire protocol's state machine on its own: events in, actions out, no database and no socket.
@Suite struct WireStateMachineTests {
    @Test func handshakeSendsHelloAndAnswersPings() throws {
        var machine = WireStateMachine()
        let hello = machine.opened(host: "localhost:9000", sessionID: "hearth-1", now: 42)
        #expect(
            try sent(hello) == [
                ["t": "c", "d": ["t": "h", "d": ["ts": 42, "v": "5", "h": "localhost:9000", "s": "hearth-1"]]]
            ])
        #expect(try sent(machine.receive(#"{"t":"c","d":{"t":"p","d":{}}}"#)) == [["t": "c", "d": ["t": "o", "d": .null]]])
        #expect(machine.receive(#"{"t":"c","d":{"t":"n","d":{}}}"#).isEmpty)
    }

    @Test func listenRunsThenAnswersAndItsDataIsPushed() throws {
        var machine = WireStateMachine()
        let actions = machine.receive(request(1, "q", ["p": "/rooms", "q": ["i": "v"], "t": 3, "h": ""]))
        guard actions.count == 1, case .run(let operation) = actions[0],
            case .listen(1, let key, let path, let query, 3, .anonymous) = operation
        else {
            Issue.record("expected a listen, got \(actions)")
            return
        }
        #expect(path == DatabasePath("/rooms"))
        #expect(key.path == path)
        let answer = machine.completed(operation, .success(.listening(7, indexOn: [])))
        #expect(try sent(answer) == [response(1, "ok", ["w": ["no_index"]])])
        #expect(machine.listens == [key: 7])

        let push = WireStateMachine.render(.event(.overwrite(path: path, node: try DataNode(json: ["r1": 1]), tag: 3)))
        #expect(try JSONValue.parse(push) == ["t": "d", "d": ["a": "d", "b": ["p": "rooms", "t": 3, "d": ["r1": 1]]]])
        let revoked = WireStateMachine.render(.event(.revoked(path: path, query: query, tag: 3)))
        #expect(try JSONValue.parse(revoked) == ["t": "d", "d": ["a": "c", "b": ["p": "/rooms", "q": [query.wireJSON]]]])

        // Listening again to the same path and query replaces the listen.
        let again = machine.receive(request(2, "q", ["p": "/rooms", "q": ["i": "v"], "h": ""]))
        guard again.count == 2, case .unlisten([7]) = again[0], case .run(.listen(2, key, _, _, nil, _)) = again[1] else {
            Issue.record("expected the old listen to end first, got \(again)")
            return
        }
        #expect(machine.listens.isEmpty)
    }

    @Test func unlistenEndsTheListenAndAnswers() throws {
        var machine = try listening(at: "/a", id: 5)
        let actions = machine.receive(request(2, "n", ["p": "/a"]))
        guard case .unlisten([5]) = actions.first else {
            Issue.record("expected the listen to end, got \(actions)")
            return
        }
        #expect(try sent(actions) == [response(2, "ok", "")])
        #expect(machine.listens.isEmpty)
        #expect(try sent(machine.receive(request(3, "n", ["p": "/a"]))) == [response(3, "ok", "")])
    }

    @Test func authAndUnauthSwitchWhoTheClientIsAndRecheckListens() throws {
        var machine = WireStateMachine()
        let signIn = machine.receive(request(1, "auth", ["cred": .string(idToken("u1"))]))
        let answer = try sent(signIn)
        #expect(answer.first?["d"]?["b"]?["s"] == "ok")
        #expect(answer.first?["d"]?["b"]?["d"]?["auth"]?["uid"] == "u1")
        #expect(answer.first?["d"]?["b"]?["d"]?["expires"] == 4_000_000_000)
        #expect(machine.auth != .anonymous)

        #expect(try sent(machine.receive(request(2, "auth", ["cred": "owner"]))) == [response(2, "ok", ["auth": .null, "expires": .null])])
        #expect(machine.auth == .admin)
        #expect(try sent(machine.receive(request(3, "auth", ["cred": "nonsense"]))) == [response(3, "invalid_token", "Could not parse auth token.")])
        #expect(try sent(machine.receive(request(4, "auth", [:]))) == [response(4, "invalid_token", "Missing credential.")])

        var listened = try listening(at: "/private", id: 9)
        let signOut = listened.receive(request(2, "unauth", [:]))
        guard signOut.count == 1, case .run(let operation) = signOut[0],
            case .reauthorize(2, [9], .anonymous, _) = operation
        else {
            Issue.record("expected the listens to be checked again, got \(signOut)")
            return
        }
        #expect(listened.auth == .anonymous)
        #expect(try sent(listened.completed(operation, .success(.revoked([9])))) == [response(2, "ok", "")])
        #expect(listened.listens.isEmpty)
    }

    @Test func onDisconnectWritesRunAsTheClientWhenTheConnectionCloses() throws {
        var machine = try listening(at: "/a", id: 4)
        let set = machine.receive(request(2, "o", ["p": "/presence/u1", "d": ["online": false]]))
        guard set.count == 1, case .run(let check) = set[0], case .checkWrite(2, .set(let path, _), .anonymous) = check else {
            Issue.record("expected the write to be checked, got \(set)")
            return
        }
        #expect(path == DatabasePath("/presence/u1"))
        #expect(machine.onDisconnect.writes.isEmpty)
        #expect(try sent(machine.completed(check, .success(.done))) == [response(2, "ok", "")])

        let refused = machine.receive(request(3, "om", ["p": "/status", "d": ["u1": "gone"]]))
        guard case .run(let denied) = refused.first else {
            Issue.record("expected the update to be checked, got \(refused)")
            return
        }
        #expect(try sent(machine.completed(denied, .failure(.permissionDenied))) == [response(3, "permission_denied", "Permission denied")])
        #expect(machine.onDisconnect.writes.count == 1)

        let closing = machine.closed()
        guard closing.count == 3, case .unlisten([4]) = closing[0], case .writeAll(let writes) = closing[1],
            case .finish = closing[2]
        else {
            Issue.record("expected the listens to end, then the writes, then the end, got \(closing)")
            return
        }
        #expect(writes.map(\.0.path) == [DatabasePath("/presence/u1")])
        #expect(writes.map(\.1) == [.anonymous])
        #expect(machine.listens.isEmpty && machine.onDisconnect.writes.isEmpty)
        guard case .finish? = machine.closed().first else {
            Issue.record("expected nothing more to do")
            return
        }
    }

    @Test func malformedMessagesEndTheConnectionAndBadRequestsFailAlone() throws {
        var machine = WireStateMachine()
        for text in ["{not json", #"{"t":"d","d":{"a":"q"}}"#, #"{"t":"x"}"#] {
            let actions = machine.receive(text)
            guard case .close? = actions.last else {
                Issue.record("expected \(text) to end the connection, got \(actions)")
                continue
            }
            #expect(try sent(actions).first?["d"]?["t"] == "e")
        }
        #expect(try sent(machine.receive(request(1, "zz", [:]))) == [response(1, "invalid_request", "Unknown action \"zz\"")])
        #expect(try sent(machine.receive(request(2, "q", [:]))) == [response(2, "invalid_data", "Invalid request: missing path \"p\"")])
        #expect(try sent(machine.receive(request(3, "s", [:]))) == [response(3, "ok", "")])
    }

    // MARK: - Helpers

    /// A data request envelope's text.
    private func request(_ number: Int64, _ action: String, _ body: JSONValue) -> String {
        JSONValue.object(["t": "d", "d": ["r": .int(number), "a": .string(action), "b": body]]).serialized()
    }

    /// A response envelope.
    private func response(_ number: Int64, _ status: String, _ data: JSONValue) -> JSONValue {
        ["t": "d", "d": ["r": .int(number), "b": ["s": .string(status), "d": data]]]
    }

    /// The frames among `actions`, parsed.
    private func sent(_ actions: [WireStateMachine.Action]) throws -> [JSONValue] {
        try actions.compactMap { action in
            guard case .send(let item) = action else { return nil }
            return try JSONValue.parse(WireStateMachine.render(item))
        }
    }

    /// A machine listening at `path` (no query) under the database id `id`.
    private func listening(at path: String, id: UInt64) throws -> WireStateMachine {
        var machine = WireStateMachine()
        guard case .run(let operation)? = machine.receive(request(1, "q", ["p": .string(path), "h": ""])).last else {
            throw ListenFailed()
        }
        _ = machine.completed(operation, .success(.listening(id, indexOn: [])))
        return machine
    }

    /// `listening(at:id:)` got no listen to run.
    private struct ListenFailed: Error {}
}
