import EmulatorCore
import Foundation
import Testing

@testable import HearthTesting

/// The test kit's own surface: addresses, identities, attaching, the environment's admin calls and the
/// assertions.
@Suite(.timeLimit(.minutes(1))) struct RulesTestEnvironmentTests {
    @Test(arguments: [
        ("127.0.0.1:8080", "127.0.0.1", 8080), ("localhost:9099", "localhost", 9099), ("[::1]:9000", "::1", 9000),
        ("http://127.0.0.1:9199", "127.0.0.1", 9199), ("http://127.0.0.1:9199/", "127.0.0.1", 9199),
    ])
    func addressesAreReadAsTheVariablesWriteThem(text: String, host: String, port: Int) throws {
        let address = try #require(EmulatorAddress(text))
        #expect(address.host == host)
        #expect(address.port == port)
        #expect(EmulatorAddress(address.description) == address)
    }

    @Test(arguments: ["127.0.0.1", ":8080", "host:port", "127.0.0.1:70000", ""])
    func addressesWithoutAPortAreRefused(text: String) {
        #expect(EmulatorAddress(text) == nil)
    }

    @Test func userTokensCarryTheUidProjectAndClaims() throws {
        let identity = ClientIdentity.user("alice", projectID: "demo-p", claims: ["admin": true, "email": "a@example.com"])
        let token = try #require(identity.token)
        let jwt = try #require(UnsignedJWT(decoding: token))
        #expect(jwt.header["alg"] == "none")
        #expect(jwt.payload["sub"] == "alice")
        #expect(jwt.payload["user_id"] == "alice")
        #expect(jwt.payload["aud"] == "demo-p")
        #expect(jwt.payload["iss"] == "https://securetoken.google.com/demo-p")
        #expect(jwt.payload["admin"] == true)
        #expect(jwt.payload["email"] == "a@example.com")
        let overridden = try #require(ClientIdentity.user("alice", projectID: "demo-p", claims: ["sub": "mallory"]).token)
        #expect(UnsignedJWT(decoding: overridden)?.payload["sub"] == "alice")
        #expect(identity.authorization(scheme: "Firebase") == "Firebase \(token)")
        #expect(ClientIdentity.admin.authorization() == "Bearer owner")
        #expect(ClientIdentity.unauthenticated.authorization() == nil)
    }

    @Test func attachingReadsTheVariablesAndNeedsOne() async throws {
        #expect(try await HearthEmulators.attach(environment: [:]) == nil)
        let emulators = try #require(
            try await HearthEmulators.attach(environment: [
                "FIRESTORE_EMULATOR_HOST": "127.0.0.1:8080", "STORAGE_EMULATOR_HOST": "http://127.0.0.1:9199",
                "FIREBASE_DATABASE_EMULATOR_HOST": "localhost:9000", "GCLOUD_PROJECT": "demo-ci",
            ]))
        #expect(emulators.projectID == "demo-ci")
        #expect(emulators.firestore == EmulatorAddress(host: "127.0.0.1", port: 8080))
        #expect(emulators.storage == EmulatorAddress(host: "127.0.0.1", port: 9199))
        #expect(emulators.database == EmulatorAddress(host: "localhost", port: 9000))
        #expect(emulators.auth == nil)
        #expect(!emulators.isInProcess)
        await #expect(throws: ClientError.self) {
            try await HearthEmulators.attach(environment: ["FIRESTORE_EMULATOR_HOST": "nowhere"])
        }
    }

    @Test func attachingThroughTheHubFindsEveryEmulator() async throws {
        let started = try await HearthEmulators.start(projectID: "demo-hub")
        await #expect(throws: Never.self) {
            let hub = try #require(started.hub)
            let attached = try #require(
                try await HearthEmulators.attach(environment: ["FIREBASE_EMULATOR_HUB": hub.description, "GCLOUD_PROJECT": "demo-hub"]))
            #expect(attached.firestore == started.firestore)
            #expect(attached.auth == started.auth)
            #expect(attached.storage == started.storage)
            #expect(attached.database == started.database)
        }
        await started.stop()
    }

    @Test func rulesThatDoNotCompileAreRefusedWithTheirLocation() async throws {
        let emulators = try await HearthEmulators.start(projectID: "demo-bad-rules")
        let firestore = await #expect(throws: ClientError.self) {
            _ = try await RulesTestEnvironment(firestoreRules: "service cloud.firestore { match /x { allow read: if ; } }", emulators: emulators)
        }
        #expect(firestore?.code == .invalidArgument)
        #expect(firestore?.message.contains("1:") == true)
        let database = await #expect(throws: ClientError.self) {
            _ = try await RulesTestEnvironment(databaseRules: #"{"rules": {".read": "auth.uid =="}}"#, emulators: emulators)
        }
        #expect(database?.message.contains("1:") == true)
        let storage = await #expect(throws: ClientError.self) {
            _ = try await RulesTestEnvironment(storageRules: "service firebase.storage { match /b/{b}/o { allow read: if; } }", emulators: emulators)
        }
        #expect(storage?.code == .invalidArgument)
        #expect(storage?.message.contains("1:") == true)
        await emulators.stop()
    }

    @Test func rulesDisabledWritesWhatTheRulesRefuseAndClearingRemovesIt() async throws {
        let closed = "rules_version = '2';\nservice cloud.firestore { match /databases/{d}/documents { match /{doc=**} { allow read, write: if false; } } }"
        var kept: (RulesTestEnvironment, RulesTestContext)?
        try await withRulesTestEnvironment(
            projectID: "demo-clear", firestoreRules: closed,
            storageRules: "rules_version = '2';\nservice firebase.storage { match /b/{b}/o { match /{all=**} { allow read, write: if false; } } }",
            databaseRules: #"{"rules": {".read": false, ".write": false}}"#
        ) { environment in
            let alice = environment.authenticatedContext("alice")
            kept = (environment, alice)
            try await assertFails { try await alice.firestore().document("notes/n1").setData(["text": "hi"]) }
            try await environment.withSecurityRulesDisabled { admin in
                try await admin.firestore().document("notes/n1").setData(["text": "hi"])
                _ = try await admin.storage().reference("notes/a/n1.txt").putData(Data("hi".utf8))
                _ = try await admin.storage().reference("notes/b/c/n2.txt").putData(Data("hi".utf8))
                try await admin.database().reference("notes/n1").setValue("hi")
            }
            try await assertFails { try await alice.firestore().document("notes/n1").getDocument() }

            try await environment.clearFirestore()
            try await environment.clearStorage()
            try await environment.clearDatabase()
            try await environment.withSecurityRulesDisabled { admin in
                #expect(try await !admin.firestore().document("notes/n1").getDocument().exists)
                let listing = try await admin.storage().reference().listAll()
                #expect(listing.items.isEmpty && listing.prefixes.isEmpty)
                #expect(try await !admin.database().reference("notes").getData().exists)
            }
            #expect(environment.emulators.isInProcess)
        }
        let (environment, alice) = try #require(kept)
        let closedError = await #expect(throws: ClientError.self) { try await alice.firestore().document("notes/n1").getDocument() }
        #expect(closedError?.code == .failedPrecondition)
        #expect(throws: ClientError.self) { try environment.authenticatedContext("bob").storage() }
        await #expect(throws: ClientError.self) { try await environment.unauthenticatedContext().database() }
        await #expect(throws: ClientError.self) { try await environment.withSecurityRulesDisabled { try $0.firestore() } }
    }

    @Test func assertionsPassOnlyForWhatTheyExpect() async throws {
        let denied = ClientError(.permissionDenied, status: 403, message: "Permission denied.")
        #expect(try await assertFails { throw denied } == denied)
        #expect(try await assertSucceeds { 42 } == 42)
        let succeeded = await #expect(throws: RulesAssertionFailure.self) { try await assertFails { 42 } }
        #expect(succeeded?.message == "Expected request to fail, but it succeeded.")
        let otherError = await #expect(throws: RulesAssertionFailure.self) {
            try await assertFails { throw ClientError(.notFound, status: 404, message: "Not Found.") }
        }
        #expect(otherError?.message.hasPrefix("Expected PERMISSION_DENIED but got an unexpected error") == true)
        let failed = await #expect(throws: RulesAssertionFailure.self) { try await assertSucceeds { throw denied } }
        #expect(failed?.description.contains("RulesTestEnvironmentTests.swift:") == true)
    }
}
