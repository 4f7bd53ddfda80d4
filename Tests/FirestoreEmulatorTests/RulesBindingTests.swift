import EmulatorCore
import HTTPTypes
import Testing

@testable import FirestoreEmulator

@Suite struct RulesBindingTests {
    static let chatRules = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            function isParticipant(conversationId) {
              return request.auth != null
                && request.auth.uid in get(/databases/$(database)/documents/conversations/$(conversationId)).data.participantIds;
            }
            match /conversations/{conversationId} {
              allow get, update, delete: if request.auth != null && request.auth.uid in resource.data.participantIds;
              allow list: if request.auth != null && request.auth.uid in resource.data.participantIds;
              allow create: if request.auth != null && request.auth.uid in request.resource.data.participantIds;
              match /messages/{messageId} {
                allow read: if isParticipant(conversationId);
                allow create: if isParticipant(conversationId) && request.resource.data.senderId == request.auth.uid
                  && request.resource.data.timestamp == request.time;
              }
            }
            match /invites/{id} {
              allow create: if getAfter(/databases/$(database)/documents/conversations/$(request.resource.data.conversation)).data.participantIds.size() > 0;
            }
          }
        }
        """

    private func conversation(_ session: FirestoreTestClient.Session) async throws {
        try await session.loadRules(Self.chatRules)
        try await session.set("conversations/c1", ["participantIds": ["arrayValue": ["values": [string("alice"), string("bob")]]]])
        try await session.set("conversations/c1/messages/m1", ["senderId": string("alice")])
    }

    @Test func participantsReadAndOthersAreDenied() async throws {
        try await FirestoreTestClient().run { session in
            try await conversation(session)
            #expect(try await session.request(.get, session.root + "/conversations/c1", as: .user("alice")).status == 200)
            let denied = try await session.request(.get, session.root + "/conversations/c1", as: .user("eve"))
            #expect(denied.status == 403 && denied.errorStatus == "PERMISSION_DENIED")
            #expect(denied.errorMessage?.hasPrefix("Missing or insufficient permissions.\n") == true)
            #expect(try await session.request(.get, session.root + "/conversations/c1", as: .anonymous).status == 403)
            #expect(try await session.request(.get, session.root + "/conversations/c1/messages", as: .user("bob")).status == 200)
            #expect(try await session.request(.get, session.root + "/conversations/c1/messages", as: .user("eve")).status == 403)
        }
    }

    @Test func rulesAreNotFilters() async throws {
        try await FirestoreTestClient().run { session in
            try await conversation(session)
            let filtered: JSONValue = [
                "from": [["collectionId": "conversations"]],
                "where": [
                    "fieldFilter": [
                        "field": ["fieldPath": "participantIds"], "op": "ARRAY_CONTAINS", "value": string("alice"),
                    ]
                ],
            ]
            let (allowed, names) = try await session.query(filtered, as: .user("alice"))
            #expect(allowed.status == 200 && names == ["conversations/c1"], "\(allowed.json)")
            let (denied, _) = try await session.query(["from": [["collectionId": "conversations"]]], as: .user("alice"))
            #expect(denied.status == 403, "\(denied.json)")
            let (other, _) = try await session.query(filtered, as: .user("eve"))
            #expect(other.status == 403)
        }
    }

    @Test func writesSeeTheDocumentAfterTheWrite() async throws {
        try await FirestoreTestClient().run { session in
            try await conversation(session)
            func message(_ sender: String) -> JSONValue {
                [
                    "update": ["name": .string(session.name("conversations/c1/messages/\(sender)")), "fields": ["senderId": string(sender)]],
                    "updateTransforms": [["fieldPath": "timestamp", "setToServerValue": "REQUEST_TIME"]],
                ]
            }
            #expect(try await session.commit([message("alice")], as: .user("alice")).status == 200)
            #expect(try await session.commit([message("eve")], as: .user("eve")).status == 403)
            let noTimestamp: JSONValue = [
                "update": ["name": .string(session.name("conversations/c1/messages/x")), "fields": ["senderId": string("bob")]]
            ]
            #expect(try await session.commit([noTimestamp], as: .user("bob")).status == 403)
            let update: JSONValue = [
                "update": ["name": .string(session.name("conversations/c1")), "fields": ["participantIds": ["arrayValue": [:]]]]
            ]
            #expect(try await session.commit([update], as: .user("eve")).status == 403)
            #expect(try await session.commit([update], as: .user("bob")).status == 200)
        }
    }

    @Test func getAfterSeesTheWholeCommit() async throws {
        try await FirestoreTestClient().run { session in
            try await session.loadRules(Self.chatRules)
            let invite: JSONValue = [
                "update": ["name": .string(session.name("invites/i")), "fields": ["conversation": string("c9")]]
            ]
            let conversation: JSONValue = [
                "update": [
                    "name": .string(session.name("conversations/c9")),
                    "fields": ["participantIds": ["arrayValue": ["values": [string("carol")]]]],
                ]
            ]
            #expect(try await session.commit([invite], as: .user("carol")).status == 403)
            let both = try await session.commit([invite, conversation], as: .user("carol"))
            #expect(both.status == 200, "\(both.json)")
        }
    }

    @Test func invalidRulesReportIssues() async throws {
        try await FirestoreTestClient().run { session in
            let reply = try await session.request(
                .put, "/emulator/v1/projects/\(session.projectID):securityRules",
                body: ["rules": ["files": [["name": "firestore.rules", "content": "service cloud.firestore { match"]]], "ignore_errors": true])
            #expect(reply.status == 200)
            let issue = reply.json["issues"]?.arrayValue?.first { $0["severity"] == "ERROR" }
            #expect(issue?["sourcePosition"]?["line"] == 1, "\(reply.json)")
            let strict = try await session.request(
                .put, "/emulator/v1/projects/\(session.projectID):securityRules",
                body: ["rules": ["files": [["name": "firestore.rules", "content": "service cloud.firestore { match"]]]])
            #expect(strict.status == 400)
        }
    }
}
