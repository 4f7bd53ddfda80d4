import EmulatorCore
import Foundation
import Testing

@testable import HearthTesting

/// The suite's checkpoints through the hub, with the test kit's real clients: every emulator comes back, and
/// the listeners open across a restore see its changes as writes.
@Suite(.timeLimit(.minutes(1))) struct CheckpointTests {
    /// Runs `body` with a suite of its own on free ports, its environment and an admin context.
    private func withSuite(
        _ projectID: String,
        _ body: (HearthEmulators, RulesTestEnvironment, RulesTestContext) async throws -> Void
    ) async throws {
        let emulators = try await HearthEmulators.start(projectID: projectID)
        defer { Task { await emulators.stop() } }
        try await withRulesTestEnvironment(emulators: emulators) { environment in
            try await environment.withSecurityRulesDisabled { admin in try await body(emulators, environment, admin) }
        }
    }

    @Test func aRestoreBringsBackEveryEmulatorAndListenersSeeIt() async throws {
        try await withSuite("demo-checkpoints") { emulators, environment, admin in
            let firestore = try admin.firestore()
            let database = try await admin.database()
            let storage = try admin.storage()
            let auth = try environment.auth()
            // Seed once.
            try await firestore.document("rooms/r1").setData(["title": "seeded", "count": 1])
            try await firestore.document("rooms/r2").setData(["title": "second"])
            try await database.reference("presence/alice").setValue(["online": true])
            _ = try await storage.reference().child("docs/a.pdf").putData(Data("seeded".utf8))
            _ = try await auth.signUp(email: "seeded@example.com", password: "s3cret!")
            try await emulators.checkpoint("seeded")
            #expect(try await emulators.checkpoints() == ["seeded"])

            // A test changes everything, while listeners watch.
            var documents = firestore.document("rooms/r1").snapshots().makeAsyncIterator()
            #expect(try await documents.next()?.data?["title"] == "seeded")
            var rooms = firestore.collection("rooms").snapshots().makeAsyncIterator()
            #expect(try await rooms.next()?.documents.count == 2)
            var presence = database.reference("presence/alice").snapshots().makeAsyncIterator()
            #expect(try await presence.next()?.value == ["online": true])

            try await firestore.document("rooms/r1").setData(["title": "changed", "count": 2])
            try await firestore.document("rooms/r2").delete()
            try await firestore.document("rooms/r3").setData(["title": "new"])
            try await database.reference("presence/alice").setValue(["online": false])
            _ = try await storage.reference().child("docs/a.pdf").putData(Data("changed".utf8))
            _ = try await storage.reference().child("docs/b.pdf").putData(Data("new".utf8))
            _ = try await auth.signUp(email: "later@example.com", password: "s3cret!")
            #expect(try await documents.next()?.data?["title"] == "changed")
            #expect(try await presence.next()?.value == ["online": false])

            try await emulators.restore("seeded")

            // Listeners see the restore as changes, never stale data.
            let restored = try #require(try await documents.next())
            #expect(restored.data == ["title": "seeded", "count": 1])
            // The collection listener passes through the test's changes, then the restore's.
            var snapshot = try #require(try await rooms.next())
            while snapshot.documents.map(\.id) != ["r1", "r2"] || snapshot.documents.first?.data?["title"] != "seeded" {
                snapshot = try #require(try await rooms.next())
            }
            #expect(snapshot.documents.map(\.data) == [["title": "seeded", "count": 1], ["title": "second"]])
            #expect(try await presence.next()?.value == ["online": true])

            // Reads agree.
            #expect(try await firestore.document("rooms/r3").getDocument().exists == false)
            #expect(try await firestore.document("rooms/r2").getDocument().data == ["title": "second"])
            #expect(try await storage.reference().child("docs/a.pdf").data() == Data("seeded".utf8))
            await #expect(throws: (any Error).self) { try await storage.reference().child("docs/b.pdf").data() }
            _ = try await auth.signIn(email: "seeded@example.com", password: "s3cret!")
            await #expect(throws: (any Error).self) { try await auth.signIn(email: "later@example.com", password: "s3cret!") }

            // A checkpoint restores again and again.
            try await firestore.document("rooms/r1").setData(["title": "again"])
            try await emulators.restore("seeded")
            #expect(try await firestore.document("rooms/r1").getDocument().data?["title"] == "seeded")
            #expect(try await storage.reference().child("docs/a.pdf").data() == Data("seeded".utf8))
        }
    }

    @Test func aRestoreAfterAClearBringsTheDocumentsBack() async throws {
        try await withSuite("demo-checkpoint-clear") { emulators, environment, admin in
            let firestore = try admin.firestore()
            try await firestore.document("c/a").setData(["v": 1])
            try await emulators.checkpoint("seeded")
            try await environment.clearFirestore()
            #expect(try await firestore.document("c/a").getDocument().exists == false)
            try await emulators.restore("seeded")
            #expect(try await firestore.document("c/a").getDocument().data == ["v": 1])
            try await firestore.document("c/b").setData(["v": 2])
            try await emulators.restore("seeded")
            #expect(try await firestore.document("c/b").getDocument().exists == false)
        }
    }

    @Test func unknownAndBadNamesAreGoogleErrors() async throws {
        let emulators = try await HearthEmulators.start(projectID: "demo-checkpoint-errors")
        defer { Task { await emulators.stop() } }
        await #expect {
            try await emulators.restore("never-taken")
        } throws: { error in
            (error as? ClientError)?.code == .notFound && "\(error)".contains("No checkpoint named 'never-taken'.")
        }
        await #expect {
            try await emulators.checkpoint("no spaces")
        } throws: { error in (error as? ClientError)?.code == .invalidArgument }
        #expect(try await emulators.checkpoints().isEmpty)
    }
}
