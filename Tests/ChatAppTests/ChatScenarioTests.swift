import Foundation
import HearthTesting
import Testing

/// The chat app's four scenarios (shared/design.md §1), with its real rules, through real clients: each
/// prints how long the step the seed puts a number on took.
@Suite(.timeLimit(.minutes(1))) struct ChatScenarioTests {
    /// 1. A uploads a PDF to `documents/{c}/{m}/document.pdf` and writes the message with its attachment; B's
    /// listener on the conversation's messages sees it, and B downloads identical bytes.
    @Test func aPDFReachesTheOtherParticipant() async throws {
        try await ChatApp.run { environment in
            let (a, b) = (ChatApp.uid("alice"), ChatApp.uid("bob"))
            let conversation = try await ChatApp.createConversation([a, b], in: environment)
            let alice = environment.authenticatedContext(a)
            let bob = environment.authenticatedContext(b)
            var updates = try ChatApp.messages(conversation, as: bob).snapshots().makeAsyncIterator()
            let initial = try await updates.next { _ in true }
            #expect(initial.documents.isEmpty)

            let started = ContinuousClock.now
            let message = try alice.firestore().collection("conversations/\(conversation)/messages").document()
            let path = ChatApp.documentPath(conversation: conversation, message: message.documentID)
            let pdf = ChatApp.pdf(size: 1 << 20)
            let file = try alice.storage().reference(path)
            let stored = try await file.putData(pdf, metadata: StorageMetadata(contentType: "application/pdf"))
            let url = try await file.downloadURL()
            let attachment: FirestoreValue = [
                "id": .string(message.documentID), "type": "file", "url": .string(url),
                "sizeBytes": .integer(Int64(pdf.count)), "fileName": "document.pdf",
            ]
            try await message.setData(ChatApp.message(from: a, text: "", attachments: [attachment]))

            let seen = try await updates.next { $0.documents.contains { $0.id == message.documentID } }
            let received = try #require(seen.documents.first { $0.id == message.documentID })
            let attachments = received["attachments"]?.arrayValue ?? []
            #expect(attachments.first?.mapValue?["url"]?.stringValue == url)
            #expect(received["timestamp"]?.timestampValue != nil)
            let downloaded = try await bob.storage().reference(path).data()
            let elapsed = ChatApp.milliseconds(since: started)

            #expect(stored.size == pdf.count)
            #expect(stored.contentType == "application/pdf")
            #expect(downloaded == pdf)
            print("scenario 1: A uploaded a 1 MiB PDF and sent its message; B's listener saw it and B downloaded identical bytes in \(elapsed) (seed: 3 s)")
        }
    }

    /// 2. A 10 MiB PDF uploads, by the multipart and the resumable protocol; one byte more, a `text/plain`
    /// file, and a non-participant (writing or reading) are refused by the rules.
    @Test func aTenMebibytePDFUploadsAndTheRulesRefuseTheRest() async throws {
        try await ChatApp.run { environment in
            let (a, b, c) = (ChatApp.uid("alice"), ChatApp.uid("bob"), ChatApp.uid("carol"))
            let conversation = try await ChatApp.createConversation([a, b], in: environment)
            let alice = try environment.authenticatedContext(a).storage()
            let carol = try environment.authenticatedContext(c).storage()
            let pdf = ChatApp.pdf(size: 10 << 20)
            let metadata = StorageMetadata(contentType: "application/pdf")

            let multipart = alice.reference(ChatApp.documentPath(conversation: conversation, message: "m1"))
            var started = ContinuousClock.now
            let stored = try await multipart.putData(pdf, metadata: metadata)
            let multipartTime = ChatApp.milliseconds(since: started)
            #expect(stored.size == 10 << 20)

            let resumable = alice.reference(ChatApp.documentPath(conversation: conversation, message: "m2"))
            started = ContinuousClock.now
            let resumed = try await resumable.putDataResumable(pdf, metadata: metadata)
            let resumableTime = ChatApp.milliseconds(since: started)
            #expect(resumed.size == 10 << 20)
            print("scenario 2: a 10 MiB PDF uploaded in \(multipartTime) (multipart) and \(resumableTime) (resumable; seed: 10 s)")

            let tooBig = ChatApp.pdf(size: (10 << 20) + 1)
            let m3 = alice.reference(ChatApp.documentPath(conversation: conversation, message: "m3"))
            try await assertFails { try await m3.putData(tooBig, metadata: metadata) }
            try await assertFails { try await m3.putDataResumable(tooBig, metadata: metadata) }
            let text = Data("not a PDF".utf8)
            try await assertFails { try await m3.putData(text, metadata: StorageMetadata(contentType: "text/plain")) }
            try await assertFails { try await m3.putData(pdf, metadata: StorageMetadata(contentType: "text/plain")) }
            await #expect(throws: ClientError.self) { try await m3.metadata() }  // nothing was stored

            let intruder = carol.reference(ChatApp.documentPath(conversation: conversation, message: "m4"))
            try await assertFails { try await intruder.putData(ChatApp.pdf(size: 1024), metadata: metadata) }
            try await assertFails { try await carol.reference(multipart.path).data() }
            try await assertFails { try await carol.reference(multipart.path).metadata() }
            let bob = try environment.authenticatedContext(b).storage()
            #expect(try await bob.reference(resumable.path).data() == pdf)
        }
    }

    /// 3. Presence: A goes online with an onDisconnect; A's connection is cut without a goodbye; B sees
    /// `online: false` with the server's `lastSeen`.
    @Test func aDroppedConnectionShowsAsOffline() async throws {
        try await ChatApp.run { environment in
            let (a, b) = (ChatApp.uid("alice"), ChatApp.uid("bob"))
            let alice = try await environment.authenticatedContext(a).database()
            let bob = try await environment.authenticatedContext(b).database()
            let presence = alice.reference("presence/\(a)")
            var seen = bob.reference("presence/\(a)").snapshots().makeAsyncIterator()
            let initial = try await seen.next { _ in true }
            #expect(!initial.exists)

            try await presence.onDisconnectSetValue(["online": false, "lastSeen": ServerValue.timestamp])
            try await presence.setValue(["online": true, "lastSeen": ServerValue.timestamp])
            let online = try await seen.next { $0.value["online"] == true }
            let onlineSince = try #require(online.value["lastSeen"]?.doubleValue)

            let cut = ContinuousClock.now
            await alice.interrupt()
            let offline = try await seen.next { $0.value["online"] == false }
            let elapsed = ChatApp.milliseconds(since: cut)
            let lastSeen = try #require(offline.value["lastSeen"]?.doubleValue)
            #expect(lastSeen >= onlineSince)
            #expect(abs(lastSeen / 1000 - Date().timeIntervalSince1970) < 60)
            print("scenario 3: B saw A offline \(elapsed) after A's connection was cut (seed: 1-2 s in production)")
        }
    }

    /// 4. With documents in the conversation: text messages, an edit, a read receipt and typing indicators
    /// keep working, and reach the other participant.
    @Test func textEditsReadReceiptsAndTypingKeepWorking() async throws {
        try await ChatApp.run { environment in
            let (a, b) = (ChatApp.uid("alice"), ChatApp.uid("bob"))
            let conversation = try await ChatApp.createConversation([a, b], in: environment)
            let alice = environment.authenticatedContext(a)
            let bob = environment.authenticatedContext(b)
            let messages = try alice.firestore().collection("conversations/\(conversation)/messages")

            let withPDF = messages.document()
            let path = ChatApp.documentPath(conversation: conversation, message: withPDF.documentID)
            _ = try await alice.storage().reference(path).putData(
                ChatApp.pdf(size: 64 * 1024), metadata: StorageMetadata(contentType: "application/pdf"))
            let pdfAttachment: FirestoreValue = ["id": .string(withPDF.documentID), "type": "file", "fileName": "document.pdf"]
            try await withPDF.setData(ChatApp.message(from: a, text: "the contract", attachments: [pdfAttachment]))

            var bobSees = try ChatApp.messages(conversation, as: bob).snapshots().makeAsyncIterator()
            _ = try await bobSees.next { $0.documents.count == 1 }

            let hello = try await messages.addDocument(data: ChatApp.message(from: a, text: "hello"))
            let afterText = try await bobSees.next { $0.documents.count == 2 }
            #expect(afterText.documents.map { $0["text"]?.stringValue } == ["the contract", "hello"])

            try await hello.updateData(["text": "hello, Bob", "editedAt": .serverTimestamp])
            let afterEdit = try await bobSees.next { $0.documents.last?["text"] == "hello, Bob" }
            #expect(afterEdit.documentChanges.map(\.kind) == [.modified])

            let bobsView = try bob.firestore().document(hello.path)
            try await bobsView.updateData(["status": "read"])
            var aliceSees = try ChatApp.messages(conversation, as: alice).snapshots().makeAsyncIterator()
            let receipts = try await aliceSees.next { $0.documents.last?["status"] == "read" }
            #expect(receipts.documents.first?["status"] == "sent")
            try await assertFails { try await bobsView.updateData(["text": "edited by Bob"]) }

            let typing = try alice.firestore().document("conversations/\(conversation)/typing/\(a)")
            var bobSeesTyping = try bob.firestore().collection("conversations/\(conversation)/typing").snapshots()
                .makeAsyncIterator()
            _ = try await bobSeesTyping.next { $0.documents.isEmpty }
            try await typing.setData(["isTyping": true, "timestamp": .serverTimestamp])
            let typingNow = try await bobSeesTyping.next { $0.documents.count == 1 }
            #expect(typingNow.documents.first?.id == a)
            try await typing.delete()
            _ = try await bobSeesTyping.next { $0.documents.isEmpty }

            #expect(try await bob.storage().reference(path).metadata().contentType == "application/pdf")
        }
    }
}
