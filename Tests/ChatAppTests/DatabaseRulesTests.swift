import HearthTesting
import Testing

/// database.rules.json at the repo root: presence is read by signed-in users and written by its own user
/// only; nothing else is open.
@Suite(.timeLimit(.minutes(1))) struct DatabaseRulesTests {
    @Test func presenceIsWrittenByItsUserOnly() async throws {
        try await ChatApp.run { environment in
            let (a, b) = (ChatApp.uid("alice"), ChatApp.uid("bob"))
            let alice = try await environment.authenticatedContext(a).database()
            let bob = try await environment.authenticatedContext(b).database()
            let nobody = try await environment.unauthenticatedContext().database()
            let online: JSONValue = ["online": true, "lastSeen": ServerValue.timestamp]
            try await assertSucceeds { try await alice.reference("presence/\(a)").setValue(online) }
            try await assertSucceeds { try await alice.reference("presence/\(a)").updateChildValues(["online": false]) }
            try await assertFails { try await bob.reference("presence/\(a)").setValue(["online": false]) }
            try await assertFails { try await bob.reference("presence/\(a)/online").setValue(false) }
            try await assertFails { try await nobody.reference("presence/\(a)").removeValue() }
            try await assertFails { try await bob.reference("presence/\(a)").onDisconnectRemoveValue() }
            try await assertSucceeds { try await alice.reference("presence/\(a)").onDisconnectSetValue(["online": false]) }
        }
    }

    @Test func presenceIsReadBySignedInUsers() async throws {
        try await ChatApp.run { environment in
            let (a, b) = (ChatApp.uid("alice"), ChatApp.uid("bob"))
            try await environment.authenticatedContext(a).database().reference("presence/\(a)").setValue(["online": true])
            let bob = try await environment.authenticatedContext(b).database()
            let seen = try await assertSucceeds { try await bob.reference("presence/\(a)").getData() }
            #expect(seen.value == ["online": true])
            var listener = bob.reference("presence/\(a)").snapshots().makeAsyncIterator()
            #expect(try await assertSucceeds { try await listener.next { _ in true } }.value == ["online": true])
            let nobody = try await environment.unauthenticatedContext().database()
            try await assertFails { try await nobody.reference("presence/\(a)").getData() }
            try await assertFails {
                for try await _ in nobody.reference("presence/\(a)").snapshots() {}
            }
        }
    }

    @Test func everythingOutsidePresenceIsClosed() async throws {
        try await ChatApp.run { environment in
            let a = ChatApp.uid("alice")
            let alice = try await environment.authenticatedContext(a).database()
            try await assertFails { try await alice.reference("users/\(a)").setValue(["name": "Alice"]) }
            try await assertFails { try await alice.reference("presence").getData() }
            try await assertFails { try await alice.reference("/").getData() }
        }
    }
}
