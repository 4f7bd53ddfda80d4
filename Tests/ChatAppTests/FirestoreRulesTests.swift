import HearthTesting
import Testing

/// firestore.rules at the repo root, rule by rule: each allow has a request it lets through and one it
/// refuses, written with the test kit as a rules-unit-testing user would.
@Suite(.timeLimit(.minutes(1))) struct FirestoreRulesTests {
    /// Alice and Bob in a conversation Carol is not part of, with one message from Alice.
    private struct Chat {
        let environment: RulesTestEnvironment
        let alice: RulesTestContext
        let bob: RulesTestContext
        let carol: RulesTestContext
        let nobody: RulesTestContext
        let ids: (alice: String, bob: String, carol: String)
        let conversation: String
        let message: String

        static func run(_ body: (Chat) async throws -> Void) async throws {
            try await ChatApp.run { environment in
                let ids = (alice: ChatApp.uid("alice"), bob: ChatApp.uid("bob"), carol: ChatApp.uid("carol"))
                let conversation = try await ChatApp.createConversation([ids.alice, ids.bob], in: environment)
                let message = try await environment.withSecurityRulesDisabled { admin in
                    try await admin.firestore().collection("conversations/\(conversation)/messages")
                        .addDocument(data: ChatApp.message(from: ids.alice, text: "hi")).documentID
                }
                try await body(
                    Chat(
                        environment: environment, alice: environment.authenticatedContext(ids.alice),
                        bob: environment.authenticatedContext(ids.bob), carol: environment.authenticatedContext(ids.carol),
                        nobody: environment.unauthenticatedContext(), ids: ids, conversation: conversation,
                        message: message))
            }
        }

        func document(_ path: String, as context: RulesTestContext) throws -> DocumentReference {
            try context.firestore().document(path)
        }

        var conversationPath: String { "conversations/\(conversation)" }
        var messagePath: String { "\(conversationPath)/messages/\(message)" }
    }

    @Test func usersAreReadBySignedInUsersAndWrittenByThemselves() async throws {
        try await Chat.run { chat in
            try await assertSucceeds { try await chat.document("users/\(chat.ids.alice)", as: chat.alice).setData(["displayName": "Alice"]) }
            try await assertSucceeds { try await chat.document("users/\(chat.ids.alice)", as: chat.carol).getDocument() }
            try await assertFails { try await chat.document("users/\(chat.ids.alice)", as: chat.nobody).getDocument() }
            try await assertFails { try await chat.document("users/\(chat.ids.alice)", as: chat.bob).setData(["displayName": "Eve"]) }
            try await assertFails { try await chat.document("users/\(chat.ids.alice)", as: chat.nobody).delete() }
            try await assertSucceeds { try await chat.document("users/\(chat.ids.alice)", as: chat.alice).delete() }
        }
    }

    @Test func conversationsBelongToTheirParticipants() async throws {
        try await Chat.run { chat in
            try await assertSucceeds { try await chat.document(chat.conversationPath, as: chat.bob).getDocument() }
            try await assertFails { try await chat.document(chat.conversationPath, as: chat.carol).getDocument() }
            try await assertFails { try await chat.document(chat.conversationPath, as: chat.nobody).getDocument() }
            let missing = try await assertSucceeds {
                try await chat.document("conversations/\(ChatApp.uid("none"))", as: chat.carol).getDocument()
            }
            #expect(!missing.exists)
            try await assertFails { try await chat.document("conversations/none", as: chat.nobody).getDocument() }

            let mine = try chat.carol.firestore().collection("conversations").document()
            try await assertFails { try await mine.setData(["participantIds": [.string(chat.ids.alice), .string(chat.ids.bob)]]) }
            try await assertSucceeds { try await mine.setData(["participantIds": [.string(chat.ids.carol), .string(chat.ids.alice)]]) }

            let conversation = try chat.document(chat.conversationPath, as: chat.bob)
            try await assertSucceeds { try await conversation.updateData(["lastMessage": "hi"]) }
            try await assertFails { try await conversation.updateData(["participantIds": [.string(chat.ids.alice)]]) }
            try await assertFails { try await chat.document(chat.conversationPath, as: chat.carol).updateData(["lastMessage": "x"]) }
            try await assertFails { try await chat.document(chat.conversationPath, as: chat.carol).delete() }
            try await assertSucceeds { try await chat.document(mine.path, as: chat.carol).delete() }
        }
    }

    @Test func aUserListsOnlyTheirOwnConversations() async throws {
        try await Chat.run { chat in
            let conversations = try chat.bob.firestore().collection("conversations")
            let mine = try await assertSucceeds {
                try await conversations.whereField("participantIds", arrayContains: .string(chat.ids.bob)).getDocuments()
            }
            #expect(mine.documents.map(\.id) == [chat.conversation])
            try await assertFails { try await conversations.getDocuments() }
            try await assertFails {
                try await chat.carol.firestore().collection("conversations")
                    .whereField("participantIds", arrayContains: .string(chat.ids.bob)).getDocuments()
            }
        }
    }

    @Test func messagesAreForParticipantsAndSentInTheirSendersName() async throws {
        try await Chat.run { chat in
            let messages = "\(chat.conversationPath)/messages"
            try await assertSucceeds { try await chat.document(chat.messagePath, as: chat.bob).getDocument() }
            try await assertSucceeds { try await chat.bob.firestore().collection(messages).getDocuments() }
            try await assertFails { try await chat.document(chat.messagePath, as: chat.carol).getDocument() }
            try await assertFails { try await chat.carol.firestore().collection(messages).getDocuments() }

            try await assertSucceeds {
                try await chat.bob.firestore().collection(messages).addDocument(data: ChatApp.message(from: chat.ids.bob, text: "yo"))
            }
            try await assertFails {
                try await chat.bob.firestore().collection(messages).addDocument(data: ChatApp.message(from: chat.ids.alice, text: "fake"))
            }
            try await assertFails {
                try await chat.carol.firestore().collection(messages).addDocument(data: ChatApp.message(from: chat.ids.carol, text: "hey"))
            }
            try await assertFails {
                try await chat.nobody.firestore().collection(messages).addDocument(data: ["text": "anonymous"])
            }
            try await assertFails {
                try await chat.bob.firestore().collection(messages).addDocument(data: ["text": "no sender"])
            }
        }
    }

    @Test func theSenderEditsAndDeletesAndOthersOnlyMarkAsRead() async throws {
        try await Chat.run { chat in
            let byAlice = try chat.document(chat.messagePath, as: chat.alice)
            let byBob = try chat.document(chat.messagePath, as: chat.bob)
            try await assertSucceeds { try await byAlice.updateData(["text": "hi there", "editedAt": .serverTimestamp]) }
            try await assertSucceeds { try await byBob.updateData(["status": "read"]) }
            try await assertFails { try await byBob.updateData(["text": "edited by Bob"]) }
            try await assertFails { try await byAlice.updateData(["senderId": .string(chat.ids.bob)]) }
            try await assertFails { try await chat.document(chat.messagePath, as: chat.carol).updateData(["status": "read"]) }
            try await assertFails { try await byBob.delete() }
            try await assertSucceeds { try await byAlice.delete() }
        }
    }

    @Test func typingIndicatorsAreWrittenByTheirUserAndReadByParticipants() async throws {
        try await Chat.run { chat in
            let typing = "\(chat.conversationPath)/typing"
            try await assertSucceeds { try await chat.document("\(typing)/\(chat.ids.alice)", as: chat.alice).setData(["isTyping": true]) }
            try await assertSucceeds { try await chat.document("\(typing)/\(chat.ids.alice)", as: chat.bob).getDocument() }
            try await assertSucceeds { try await chat.bob.firestore().collection(typing).getDocuments() }
            try await assertFails { try await chat.document("\(typing)/\(chat.ids.alice)", as: chat.bob).setData(["isTyping": false]) }
            try await assertFails { try await chat.document("\(typing)/\(chat.ids.carol)", as: chat.carol).setData(["isTyping": true]) }
            try await assertFails { try await chat.document("\(typing)/\(chat.ids.alice)", as: chat.carol).getDocument() }
            try await assertFails { try await chat.document("\(typing)/\(chat.ids.alice)", as: chat.nobody).getDocument() }
            try await assertSucceeds { try await chat.document("\(typing)/\(chat.ids.alice)", as: chat.alice).delete() }
        }
    }

    @Test func aListenerIsRefusedLikeARead() async throws {
        try await Chat.run { chat in
            let messages = try chat.carol.firestore().collection("\(chat.conversationPath)/messages")
            try await assertFails {
                for try await _ in messages.snapshots() {}
            }
            var bobs = try chat.bob.firestore().collection("\(chat.conversationPath)/messages").snapshots().makeAsyncIterator()
            let first = try await assertSucceeds { try await bobs.next { _ in true } }
            #expect(first.documents.map(\.id) == [chat.message])
        }
    }
}
