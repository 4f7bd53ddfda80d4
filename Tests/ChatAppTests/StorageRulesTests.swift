import Foundation
import HearthTesting
import Testing

/// storage.rules at the repo root, rule by rule: documents, images and profile pictures, each allow with a
/// request it lets through and the requests it refuses.
@Suite(.timeLimit(.minutes(1))) struct StorageRulesTests {
    private static let pdf = StorageMetadata(contentType: "application/pdf")
    private static let png = StorageMetadata(contentType: "image/png")

    /// Runs `body` with Alice and Bob in a conversation Carol is not part of.
    private static func run(
        _ body: (_ environment: RulesTestEnvironment, _ ids: (alice: String, bob: String, carol: String), _ conversation: String)
            async throws -> Void
    ) async throws {
        try await ChatApp.run { environment in
            let ids = (alice: ChatApp.uid("alice"), bob: ChatApp.uid("bob"), carol: ChatApp.uid("carol"))
            let conversation = try await ChatApp.createConversation([ids.alice, ids.bob], in: environment)
            try await body(environment, ids, conversation)
        }
    }

    @Test func documentsArePDFsOfAtMostTenMebibytesUploadedAndDeletedByParticipants() async throws {
        try await Self.run { environment, ids, conversation in
            let path = ChatApp.documentPath(conversation: conversation, message: "m1")
            let alice = try environment.authenticatedContext(ids.alice).storage().reference(path)
            let carol = try environment.authenticatedContext(ids.carol).storage().reference(path)
            let nobody = try environment.unauthenticatedContext().storage().reference(path)
            try await assertSucceeds { try await alice.putData(ChatApp.pdf(size: 4096), metadata: Self.pdf) }
            try await assertFails { try await alice.putData(ChatApp.pdf(size: 4096), metadata: StorageMetadata(contentType: "text/plain")) }
            try await assertFails { try await alice.putData(ChatApp.pdf(size: 4096)) }
            try await assertFails { try await alice.putData(ChatApp.pdf(size: (10 << 20) + 1), metadata: Self.pdf) }
            try await assertFails { try await carol.putData(ChatApp.pdf(size: 4096), metadata: Self.pdf) }
            try await assertFails { try await nobody.putData(ChatApp.pdf(size: 4096), metadata: Self.pdf) }
            try await assertSucceeds { try await alice.putData(ChatApp.pdf(size: 10 << 20), metadata: Self.pdf) }
            try await assertFails { try await carol.delete() }
            try await assertFails { try await nobody.delete() }
            try await assertSucceeds { try await environment.authenticatedContext(ids.bob).storage().reference(path).delete() }
        }
    }

    @Test func documentsAreReadByParticipantsOnly() async throws {
        try await Self.run { environment, ids, conversation in
            let path = ChatApp.documentPath(conversation: conversation, message: "m1")
            let bytes = ChatApp.pdf(size: 4096)
            _ = try await environment.authenticatedContext(ids.alice).storage().reference(path).putData(bytes, metadata: Self.pdf)
            let bob = try environment.authenticatedContext(ids.bob).storage().reference(path)
            #expect(try await assertSucceeds { try await bob.data() } == bytes)
            try await assertSucceeds { try await bob.metadata() }
            try await assertFails { try await environment.authenticatedContext(ids.carol).storage().reference(path).data() }
            try await assertFails { try await environment.unauthenticatedContext().storage().reference(path).data() }
        }
    }

    @Test func imagesAreUnderTwoMebibytesUploadedAndDeletedByParticipants() async throws {
        try await Self.run { environment, ids, conversation in
            let path = "images/\(conversation)/m1/photo.png"
            let alice = try environment.authenticatedContext(ids.alice).storage().reference(path)
            try await assertSucceeds { try await alice.putData(Data(count: (2 << 20) - 1), metadata: Self.png) }
            try await assertFails { try await alice.putData(Data(count: 2 << 20), metadata: Self.png) }
            try await assertFails {
                try await environment.authenticatedContext(ids.carol).storage().reference(path).putData(Data(count: 10), metadata: Self.png)
            }
            try await assertSucceeds { try await environment.authenticatedContext(ids.bob).storage().reference(path).metadata() }
            try await assertFails { try await environment.authenticatedContext(ids.carol).storage().reference(path).metadata() }
            try await assertFails { try await environment.authenticatedContext(ids.carol).storage().reference(path).delete() }
            try await assertSucceeds { try await environment.authenticatedContext(ids.bob).storage().reference(path).delete() }
        }
    }

    @Test func profilePicturesAreImagesTheirUserUploadsAndDeletes() async throws {
        try await Self.run { environment, ids, _ in
            let path = "profile_pictures/\(ids.alice)/avatar.png"
            let alice = try environment.authenticatedContext(ids.alice).storage().reference(path)
            try await assertSucceeds { try await alice.putData(Data(count: 1024), metadata: Self.png) }
            try await assertFails { try await alice.putData(Data(count: 1024), metadata: Self.pdf) }
            try await assertFails { try await alice.putData(Data(count: 10 << 20), metadata: Self.png) }
            try await assertFails {
                try await environment.authenticatedContext(ids.bob).storage().reference(path).putData(Data(count: 1024), metadata: Self.png)
            }
            try await assertSucceeds { try await environment.authenticatedContext(ids.carol).storage().reference(path).data() }
            try await assertFails { try await environment.unauthenticatedContext().storage().reference(path).data() }
            try await assertFails { try await environment.authenticatedContext(ids.bob).storage().reference(path).delete() }
            try await assertSucceeds { try await alice.delete() }
        }
    }

    @Test func everythingElseIsClosed() async throws {
        try await Self.run { environment, ids, _ in
            let elsewhere = try environment.authenticatedContext(ids.alice).storage().reference("uploads/\(ids.alice)/notes.pdf")
            try await assertFails { try await elsewhere.putData(ChatApp.pdf(size: 1024), metadata: Self.pdf) }
            try await assertFails { try await elsewhere.data() }
        }
    }
}
