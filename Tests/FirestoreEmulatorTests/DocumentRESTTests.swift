import EmulatorCore
import HTTPTypes
import Testing

@testable import FirestoreEmulator

@Suite struct DocumentRESTTests {
    @Test func createGetPatchDeleteRoundTrip() async throws {
        try await FirestoreTestClient().run { session in
            let created = try await session.request(
                .post, session.root + "/rooms?documentId=a", body: ["fields": ["n": int(1), "s": string("x")]])
            #expect(created.status == 200, "\(created.json)")
            #expect(created.json["name"]?.stringValue == session.name("rooms/a"))
            let createTime = created.json["createTime"]?.stringValue
            #expect(createTime != nil && created.json["updateTime"] == created.json["createTime"])

            let again = try await session.request(.post, session.root + "/rooms?documentId=a", body: ["fields": [:]])
            #expect(again.status == 409 && again.errorStatus == "ALREADY_EXISTS")
            #expect(again.errorMessage == "Document already exists: \(session.name("rooms/a"))")

            let patched = try await session.request(
                .patch, session.root + "/rooms/a?updateMask.fieldPaths=n&updateMask.fieldPaths=gone",
                body: ["fields": ["n": int(2)]])
            #expect(patched.status == 200, "\(patched.json)")
            #expect(patched.json["fields"]?["n"] == int(2) && patched.json["fields"]?["s"] == string("x"))
            #expect(patched.json["createTime"]?.stringValue == createTime)
            #expect(patched.json["updateTime"]?.stringValue != createTime)

            let masked = try await session.request(.get, session.root + "/rooms/a?mask.fieldPaths=s")
            #expect(masked.json["fields"] == ["s": string("x")])

            #expect(try await session.request(.delete, session.root + "/rooms/a").json == [:])
            let missing = try await session.request(.get, session.root + "/rooms/a")
            #expect(missing.status == 404 && missing.errorStatus == "NOT_FOUND")
            #expect(missing.errorMessage == "Document \"\(session.name("rooms/a"))\" not found.")
            #expect(try await session.request(.delete, session.root + "/rooms/a").status == 200)
        }
    }

    @Test func patchThatChangesNothingKeepsTheUpdateTime() async throws {
        try await FirestoreTestClient().run { session in
            let first = try await session.request(.patch, session.root + "/rooms/same", body: ["fields": ["n": int(1)]])
            let second = try await session.request(.patch, session.root + "/rooms/same", body: ["fields": ["n": int(1)]])
            #expect(second.status == 200, "\(second.json)")
            #expect(second.json["updateTime"] == first.json["updateTime"])
            let masked = try await session.request(
                .patch, session.root + "/rooms/same?updateMask.fieldPaths=absent", body: ["fields": [:]])
            #expect(masked.status == 200 && masked.json["fields"] == ["n": int(1)], "\(masked.json)")
        }
    }

    @Test func runQueryReportsSkippedResultsAndANewTransactionAlone() async throws {
        try await FirestoreTestClient().run { session in
            for id in ["a", "b", "c"] { try await session.set("rooms/\(id)", [:]) }
            let reply = try await session.request(
                .post, session.root + ":runQuery",
                body: ["structuredQuery": ["from": [["collectionId": "rooms"]], "offset": 2], "newTransaction": ["readOnly": [:]]])
            let responses = reply.json.arrayValue ?? []
            #expect(responses.count == 2, "\(reply.json)")
            #expect(responses.first?.objectValue?.keys.sorted() == ["transaction"])
            #expect(responses.last?["skippedResults"] == 2 && responses.last?["document"]?["name"] == .string(session.name("rooms/c")))
        }
    }

    @Test func severalAggregationsOnlyCountDocumentsWithEveryField() async throws {
        try await FirestoreTestClient().run { session in
            try await session.set("scores/a", ["x": int(1)])
            try await session.set("scores/b", ["x": int(2)])
            try await session.set("scores/c", ["y": int(5)])
            let reply = try await session.request(
                .post, session.root + ":runAggregationQuery",
                body: [
                    "structuredAggregationQuery": [
                        "structuredQuery": ["from": [["collectionId": "scores"]]],
                        "aggregations": [["alias": "c", "count": [:]], ["alias": "s", "sum": ["field": ["fieldPath": "x"]]]],
                    ]
                ])
            let fields = reply.json.arrayValue?.first?["result"]?["aggregateFields"]
            #expect(fields?["c"] == int(2) && fields?["s"] == int(3), "\(reply.json)")
        }
    }

    @Test func updateOfMissingDocumentWithExistsPreconditionIsNotFound() async throws {
        try await FirestoreTestClient().run { session in
            let reply = try await session.request(
                .patch, session.root + "/rooms/none?currentDocument.exists=true", body: ["fields": ["n": int(1)]])
            #expect(reply.status == 404 && reply.errorMessage == "No document to update: \(session.name("rooms/none"))")
        }
    }

    @Test func autoIDsHaveTwentyCharacters() async throws {
        try await FirestoreTestClient().run { session in
            let reply = try await session.request(.post, session.root + "/rooms", body: ["fields": [:]])
            let id = reply.json["name"]?.stringValue?.split(separator: "/").last
            #expect(id?.count == 20)
        }
    }

    @Test func commitIsAtomic() async throws {
        try await FirestoreTestClient().run { session in
            try await session.set("rooms/exists", ["n": int(1)])
            let reply = try await session.commit([
                ["update": ["name": .string(session.name("rooms/new")), "fields": ["n": int(1)]]],
                [
                    "update": ["name": .string(session.name("rooms/exists")), "fields": [:]],
                    "currentDocument": ["exists": false],
                ],
            ])
            #expect(reply.status == 409, "\(reply.json)")
            #expect(try await session.request(.get, session.root + "/rooms/new").status == 404)
        }
    }

    @Test func listShowsMissingDocumentsWithSubcollections() async throws {
        try await FirestoreTestClient().run { session in
            try await session.set("rooms/a", [:])
            try await session.set("rooms/b/messages/m", [:])
            try await session.set("rooms/c", [:])
            let plain = try await session.request(.get, session.root + "/rooms")
            #expect(plain.json["documents"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == [
                session.name("rooms/a"), session.name("rooms/c"),
            ])
            let all = try await session.request(.get, session.root + "/rooms?showMissing=true")
            let documents = all.json["documents"]?.arrayValue ?? []
            #expect(documents.compactMap { $0["name"]?.stringValue } == ["a", "b", "c"].map { session.name("rooms/\($0)") })
            #expect(documents[1] == ["name": .string(session.name("rooms/b"))])

            let first = try await session.request(.get, session.root + "/rooms?pageSize=1&showMissing=true")
            let token = try #require(first.json["nextPageToken"]?.stringValue)
            let second = try await session.request(.get, session.root + "/rooms?pageSize=2&showMissing=true&pageToken=\(token)")
            #expect(second.json["documents"]?.arrayValue?.count == 2 && second.json["nextPageToken"] == nil)

            let ids = try await session.request(.post, session.root + ":listCollectionIds", body: [:])
            #expect(ids.json["collectionIds"] == ["rooms"])
            let under = try await session.request(.post, session.root + "/rooms/b:listCollectionIds", body: [:])
            #expect(under.json["collectionIds"] == ["messages"])

            try await session.commit([["delete": .string(session.name("rooms/b/messages/m"))]])
            let after = try await session.request(.get, session.root + "/rooms?showMissing=true")
            #expect(after.json["documents"]?.arrayValue?.count == 2)
        }
    }

    @Test func malformedNamesAreInvalidArgument() async throws {
        try await FirestoreTestClient().run { session in
            for path in ["/rooms//a", "/rooms/__x__", "/rooms/a/"] {
                let reply = try await session.request(.get, session.root + path)
                #expect(reply.status == 400 && reply.errorStatus == "INVALID_ARGUMENT", "\(path): \(reply.json)")
            }
            let unknown = try await session.request(.post, session.root + ":commit", body: ["writez": []])
            #expect(unknown.errorMessage == "Invalid JSON payload received. Unknown name \"writez\": Cannot find field.")
            let value = try await session.set("rooms/v", ["n": ["integerValue": "x"]])
            #expect(value.status == 400, "\(value.json)")
        }
    }

    @Test func clearEndpointEmptiesOneDatabase() async throws {
        try await FirestoreTestClient().run { session in
            try await session.set("rooms/a", [:])
            let other = "/v1/projects/other/databases/(default)/documents"
            _ = try await session.request(
                .post, other + ":commit",
                body: ["writes": [["update": ["name": "projects/other/databases/(default)/documents/rooms/a", "fields": [:]]]]])
            let cleared = try await session.request(
                .delete, "/emulator/v1/projects/\(session.projectID)/databases/(default)/documents")
            #expect(cleared.status == 200)
            #expect(try await session.request(.get, session.root + "/rooms/a").status == 404)
            #expect(try await session.request(.get, other + "/rooms/a").status == 200)
        }
    }

    @Test func listDatabasesNamesTheDefaultAndEachThatHoldsDocumentsForTheAdministratorOnly() async throws {
        try await FirestoreTestClient().run { session in
            let named = "projects/\(session.projectID)/databases/reports"
            _ = try await session.request(
                .post, "/v1/\(named)/documents:commit",
                body: ["writes": [["update": ["name": .string("\(named)/documents/rows/r1"), "fields": [:]]]]])
            let listed = try await session.request(.get, "/v1/projects/\(session.projectID)/databases")
            #expect(listed.status == 200)
            let names = listed.json["databases"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
            #expect(names == ["projects/\(session.projectID)/databases/(default)", named])
            #expect(listed.json["databases"]?.arrayValue?.first?["type"] == "FIRESTORE_NATIVE")
            let refused = try await session.request(.get, "/v1/projects/\(session.projectID)/databases", as: .anonymous)
            #expect(refused.status == 403 && refused.errorStatus == "PERMISSION_DENIED", "\(refused.json)")
        }
    }
}
