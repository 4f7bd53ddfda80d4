import EmulatorCore
import FirestoreWire
import Foundation
import GRPCCore
import SwiftProtobuf
import Testing

@testable import FirestoreEmulator

/// The chat app at the Firestore level, over gRPC with the app's rules: B listens to a conversation's
/// messages ordered by timestamp while A sends messages; B sees each; a non-participant is refused.
@Suite struct ChatScenarioTests {
    /// The chat app's rules, shared with the conformance tests.
    static var chatRules: String {
        get throws {
            let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("conformance/fixtures/firestore/chat.rules")
            return try String(contentsOf: file, encoding: .utf8)
        }
    }

    private static func messagesTarget(_ firestore: GRPCHarness) -> Google_Firestore_V1_ListenRequest {
        .with {
            $0.database = firestore.database
            $0.addTarget.targetID = 2
            $0.addTarget.query.parent = firestore.name("conversations/c1")
            $0.addTarget.query.structuredQuery.from = [.with { $0.collectionID = "messages" }]
            $0.addTarget.query.structuredQuery.orderBy = [.with { $0.field.fieldPath = "timestamp"; $0.direction = .ascending }]
        }
    }

    /// A's message as the SDK sends `addDoc(messages, {text, senderId, timestamp: serverTimestamp()})`.
    private static func message(_ id: String, _ text: String, _ firestore: GRPCHarness) -> Google_Firestore_V1_CommitRequest {
        .with {
            $0.database = firestore.database
            $0.writes = [
                .with {
                    $0.update.name = firestore.name("conversations/c1/messages/\(id)")
                    $0.update.fields = ["text": .string(text), "senderId": .string("alice"), "status": .string("sent")]
                    $0.updateTransforms = [.with { $0.fieldPath = "timestamp"; $0.setToServerValue = .requestTime }]
                    $0.currentDocument.exists = false
                }
            ]
        }
    }

    @Test(arguments: GRPCHarness.Server.allCases) func participantsSeeEachMessageAndOthersAreRefused(server: GRPCHarness.Server) async throws {
        let rules = try Self.chatRules
        try await GRPCHarness.run(server) { firestore in
            firestore.loadRules(rules)
            try await firestore.set(
                "conversations/c1",
                ["participantIds": .with { $0.arrayValue.values = [.string("alice"), .string("bob")] }])
            try await GRPCListenTests.listen(firestore, metadata: .user("bob")) { stream in
                stream.send(Self.messagesTarget(firestore))
                let initial = try await stream.next(3)
                #expect(initial.map(\.text) == ["add[2]", "current[2]", "noChange[] @"])
                for (index, text) in ["hi", "a PDF is coming", "here it is"].enumerated() {
                    let sent = Date()
                    let commit = try await firestore.client.commit(
                        Self.message("m\(index)", text, firestore), metadata: .user("alice"))
                    let seen = try await stream.next(2)
                    let elapsed = Date().timeIntervalSince(sent) * 1000
                    print("chat: message \(index) seen by B \(String(format: "%.2f", elapsed)) ms after A sent it")
                    #expect(seen.map(\.text) == ["change conversations/c1/messages/m\(index) [2] -[]", "noChange[] @"])
                    let document = seen[0].response.documentChange.document
                    #expect(document.fields["text"] == .string(text))
                    // The commit time to the millisecond (server timestamps are, as in the official emulator).
                    var stamp = commit.commitTime
                    stamp.nanos -= stamp.nanos % 1_000_000
                    #expect(document.fields["timestamp"]?.timestampValue == stamp)
                    #expect(document.updateTime == commit.writeResults[0].updateTime)
                }
            }
            try await GRPCListenTests.listen(firestore, metadata: .user("eve")) { stream in
                stream.send(Self.messagesTarget(firestore))
                let refused = try await stream.next(2)
                #expect(refused.map(\.text) == ["add[2]", "remove[2] cause 7"])
                #expect(refused[1].response.targetChange.cause.message.hasPrefix("Missing or insufficient permissions.\n"))
            }
            await expectStatus(.permissionDenied, "Missing or insufficient permissions.") {
                try await firestore.client.commit(Self.message("m9", "let me in", firestore), metadata: .user("eve"))
            }
        }
    }
}
