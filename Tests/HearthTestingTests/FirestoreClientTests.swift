import EmulatorCore
import Foundation
@testable import HearthTesting
import Testing

/// `FirestoreClient` over gRPC against a real Firestore emulator on free ports, each test with its own suite
/// (rules are the emulator's state); the parts without I/O are in `FirestoreClientTests+WithoutIO.swift`.
@Suite(.timeLimit(.minutes(1))) struct FirestoreClientTests {
    static let projectID = "demo-firestore-client"
    static let alice = ClientIdentity.user("alice", projectID: projectID)
    static let eve = ClientIdentity.user("eve", projectID: projectID)

    /// A conversation is readable by its participants; its messages by the conversation's participants.
    static let chatRules = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /conversations/{id} {
              allow read, write: if request.auth != null && request.auth.uid in resource.data.participantIds;
              match /messages/{message} {
                allow read, write: if request.auth != null && request.auth.uid in
                  get(/databases/$(database)/documents/conversations/$(id)).data.participantIds;
              }
            }
          }
        }
        """

    // MARK: Documents

    @Test func everyValueTypeRoundTrips() async throws {
        try await withFirestore { firestore in
            let admin = try firestore.client(.admin)
            let data: [String: FirestoreValue] = [
                "null": nil, "bool": true, "integer": .integer(-9_007_199_254_740_993), "double": 2.5,
                "timestamp": .timestamp(Timestamp(seconds: 1_700_000_000, nanoseconds: 123_456_000)),
                "string": "héllo", "bytes": .bytes(Data([0, 1, 254, 255])), "reference": .reference("users/alice"),
                "geoPoint": .geoPoint(latitude: 48.85, longitude: 2.35), "array": [1, "two", ["x": 3.5]],
                "map": ["nested": ["deep": false], "empty": [:]], "emptyArray": [],
            ]
            let document = admin.document("/values//all/")
            #expect(document.path == "values/all" && document.documentID == "all" && document.parent.path == "values")
            try await document.setData(data)
            let snapshot = try await document.getDocument()
            #expect(snapshot.exists && snapshot.id == "all" && snapshot.path == "values/all")
            #expect(snapshot.data == data)
            #expect(snapshot["map.nested.deep"] == false && snapshot["map.missing"] == nil)
            #expect(snapshot["string"]?.stringValue == "héllo" && snapshot["array"]?.arrayValue?.count == 3)
            #expect(snapshot["map"]?.mapValue?["empty"] == [:])
            #expect(snapshot["integer"]?.integerValue == -9_007_199_254_740_993)
            #expect(snapshot.updateTime != nil)
        }
    }

    @Test func missingDocumentsUpdatesMergesAndDeletes() async throws {
        try await withFirestore { firestore in
            let admin = try firestore.client(.admin)
            let document = admin.collection("profiles").document("p1")
            let missing = try await document.getDocument()
            #expect(!missing.exists && missing.data == nil && missing.updateTime == nil && missing.id == "p1")

            let notFound = await #expect(throws: ClientError.self) { try await document.updateData(["name": "Ann"]) }
            #expect(notFound?.code == .notFound && notFound?.status == 5)
            try await document.setData(["name": "Ann", "address": ["city": "Paris", "zip": "75001"], "age": 30])
            try await document.updateData(["address.city": "Lyon", "age": .delete, "odd-key": 1])
            let updated = try await document.getDocument().data
            #expect(updated == ["name": "Ann", "address": ["city": "Lyon", "zip": "75001"], "odd-key": 1])

            try await document.setData(["address": ["zip": "69001"], "name": .delete, "tags": ["a"]], merge: true)
            let merged = try await document.getDocument().data
            #expect(merged == ["address": ["city": "Lyon", "zip": "69001"], "odd-key": 1, "tags": ["a"]])
            try await document.setData(["only": true])
            #expect(try await document.getDocument().data == ["only": true])

            let misuse = await #expect(throws: ClientError.self) { try await document.setData(["x": .delete]) }
            #expect(misuse?.code == .invalidArgument)
            try await document.delete()
            #expect(try await document.getDocument().exists == false)
            try await document.delete()
        }
    }

    @Test func sentinelsBecomeServerTransforms() async throws {
        try await withFirestore { firestore in
            let document = try firestore.client(.admin).document("counters/c")
            try await document.setData(["n": 1, "tags": ["a", "b"], "at": .serverTimestamp])
            let created = try await document.getDocument()
            // The update time to the millisecond: server timestamps are, as in the official emulator.
            #expect(created["at"]?.timestampValue.map { Timestamp(seconds: $0.seconds, nanoseconds: $0.nanoseconds) }
                == created.updateTime.map { Timestamp(seconds: $0.seconds, nanoseconds: $0.nanoseconds - $0.nanoseconds % 1_000_000) })
            try await document.updateData(["n": .increment(2), "tags": .arrayUnion(["b", "c"]), "meta.at": .serverTimestamp])
            try await document.setData(["tags": .arrayRemove(["a"]), "x": .increment(0.5)], merge: true)
            let updated = try await document.getDocument()
            #expect(updated["n"] == 3 && updated["tags"] == ["b", "c"] && updated["x"] == 0.5)
            #expect(updated["meta.at"]?.timestampValue.map { $0 > created.updateTime! } == true)
            #expect(updated["at"] == created["at"])
        }
    }

    // MARK: Queries

    @Test func queriesFilterOrderAndLimit() async throws {
        try await withFirestore { firestore in
            let items = try firestore.client(.admin).collection("shops/s1/items")
            for n in 1...5 {
                let tag: FirestoreValue = n.isMultiple(of: 2) ? "even" : "odd"
                try await items.document("i\(n)").setData(["n": .integer(Int64(n)), "tags": [tag]])
            }
            try await firestore.client(.admin).document("items/elsewhere").setData(["n": 3])
            func ids(_ query: some QueryConvertible) async throws -> [String] {
                try await query.getDocuments().documents.map(\.id)
            }

            #expect(try await ids(items) == ["i1", "i2", "i3", "i4", "i5"])
            let topTwo = items.whereField("n", isGreaterThanOrEqualTo: 2).order(by: "n", descending: true).limit(to: 2)
            #expect(try await ids(topTwo) == ["i5", "i4"])
            #expect(try await ids(items.whereField("n", isEqualTo: 3)) == ["i3"])
            #expect(try await ids(items.whereField("n", isNotEqualTo: 3)) == ["i1", "i2", "i4", "i5"])
            #expect(try await ids(items.whereField("n", isLessThan: 3)) == ["i1", "i2"])
            let between = items.whereField("n", isLessThanOrEqualTo: 3).whereField("n", isGreaterThan: 1)
            #expect(try await ids(between) == ["i2", "i3"])
            #expect(try await ids(items.whereField("tags", arrayContains: "even")) == ["i2", "i4"])
            #expect(try await ids(items.whereField("n", in: [1, 5, 9])) == ["i1", "i5"])
            #expect(try await ids(items.whereField("missing", isEqualTo: nil)) == [])

            let snapshot = try await items.order(by: "n").limit(to: 1).getDocuments()
            #expect(snapshot.documentChanges == [DocumentChange(kind: .added, document: snapshot.documents[0])])
            #expect(snapshot.readTime.seconds > 0)

            let added = try await items.addDocument(data: ["n": 6])
            #expect(added.documentID.count == 20 && added.parent.path == "shops/s1/items")
            #expect(try await ids(items.whereField("n", isGreaterThan: 5)) == [added.documentID])

            let misuse = await #expect(throws: ClientError.self) {
                try await items.whereField("n", isEqualTo: .serverTimestamp).getDocuments()
            }
            #expect(misuse?.code == .invalidArgument)
        }
    }

    // MARK: Transactions

    @Test func concurrentTransactionsIncrementACounter() async throws {
        try await withFirestore { firestore in
            let counter = try firestore.client(.admin).document("counters/shared")
            try await counter.setData(["n": 0])
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<2 {
                    let client = try firestore.client(.admin)
                    group.addTask {
                        for _ in 0..<5 {
                            try await client.runTransaction { transaction in
                                let n = try await transaction.getDocument(counter)["n"]?.integerValue ?? 0
                                try transaction.updateData(["n": .integer(n + 1)], forDocument: counter)
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await counter.getDocument()["n"] == 10)
        }
    }

    @Test func aFailingTransactionBodyRollsBackAndRethrows() async throws {
        struct Refused: Error {}
        try await withFirestore { firestore in
            let client = try firestore.client(.admin)
            let document = client.document("rooms/r")
            let returned = try await client.runTransaction { transaction in
                #expect(try await transaction.getDocument(document).exists == false)
                try transaction.setData(["name": "r"], forDocument: document)
                try transaction.deleteDocument(client.document("rooms/other"))
                return "done"
            }
            #expect(returned == "done")
            #expect(try await document.getDocument()["name"] == "r")
            await #expect(throws: Refused.self) {
                try await client.runTransaction { transaction in
                    try transaction.setData(["name": "changed"], forDocument: document)
                    throw Refused()
                }
            }
            #expect(try await document.getDocument()["name"] == "r")
        }
    }

    @MainActor @Test func abortedAttemptsAreRetriedOnTheCallersActor() async throws {
        try await withFirestore { firestore in
            let client = try firestore.client(.admin)
            let document = client.document("rooms/retried")
            // State of the main actor that the body changes: the body is neither @Sendable nor sent away.
            var attempts = 0
            let returned = try await client.runTransaction { transaction in
                MainActor.preconditionIsolated()
                attempts += 1
                try transaction.setData(["attempt": .integer(Int64(attempts))], forDocument: document)
                if attempts < 3 { throw ClientError(.aborted, message: "Contention: try again.") }
                return attempts
            }
            #expect(returned == 3 && attempts == 3)
            #expect(try await document.getDocument()["attempt"] == 3)

            attempts = 0
            let exhausted = await #expect(throws: ClientError.self) {
                try await client.runTransaction { _ in
                    attempts += 1
                    throw ClientError(.aborted, message: "Contention: try again.")
                }
            }
            #expect(exhausted?.code == .aborted && attempts == FirestoreClient.transactionAttempts)

            attempts = 0
            let invalid = await #expect(throws: ClientError.self) {
                try await client.runTransaction { transaction in
                    attempts += 1
                    return try await transaction.getDocument(client.document("rooms"))
                }
            }
            #expect(invalid?.code == .invalidArgument && attempts == 1)
            #expect(try await document.getDocument()["attempt"] == 3)
        }
    }

    // MARK: Listeners

    @Test func listenersOrderResultsAsTheServerDoes() async throws {
        try await withFirestore { firestore in
            let values = try firestore.client(.admin).collection("values")
            func vector(_ elements: [Double]) -> FirestoreValue {
                ["__type__": "__vector__", "value": .array(elements.map(FirestoreValue.double))]
            }
            // Names in another order than values: 2^53 + 1 is above the double 2^53 (equal as doubles); vectors
            // sort by length first, after numbers and before maps; NaN before every number.
            let data: [(String, FirestoreValue)] = [
                ("a", .integer(9_007_199_254_740_993)), ("b", .double(9_007_199_254_740_992)), ("c", vector([9, 9])),
                ("d", vector([1, 1, 1])), ("e", .double(.nan)), ("f", ["a": 1]),
            ]
            for (id, x) in data { try await values.document(id).setData(["x": x]) }
            let query = values.order(by: "x")
            let expected = ["e", "b", "a", "c", "d", "f"]
            #expect(try await query.getDocuments().documents.map(\.id) == expected)
            var snapshots = query.snapshots().makeAsyncIterator()
            #expect(try await snapshots.next()?.documents.map(\.id) == expected)
            let descending = values.order(by: "x", descending: true).snapshots()
            var reversed = descending.makeAsyncIterator()
            #expect(try await reversed.next()?.documents.map(\.id) == expected.reversed())
        }
    }

    @Test func aQueryListenerSeesAddsChangesAndRemovals() async throws {
        try await withFirestore { firestore in
            let admin = try firestore.client(.admin)
            let messages = admin.collection("conversations/c1/messages")
            try await messages.document("m1").setData(["t": 1, "text": "hi"])
            try await messages.document("m2").setData(["t": 2, "text": "there"])
            try await messages.document("other").setData(["text": "no t: not in an order by t"])
            var snapshots = messages.order(by: "t", descending: true).snapshots().makeAsyncIterator()

            let initial = try #require(try await snapshots.next())
            #expect(initial.documents.map(\.id) == ["m2", "m1"])
            #expect(initial.documentChanges.map(\.kind) == [.added, .added])
            #expect(initial.documentChanges.map(\.document.id) == ["m2", "m1"])
            try await messages.document("m3").setData(["t": 3, "text": "new"])
            let added = try #require(try await snapshots.next())
            #expect(added.documents.map(\.id) == ["m3", "m2", "m1"] && added.readTime > initial.readTime)
            #expect(added.documentChanges == [DocumentChange(kind: .added, document: added.documents[0])])
            try await messages.document("m1").updateData(["t": 4])
            let modified = try #require(try await snapshots.next())
            #expect(modified.documents.map(\.id) == ["m1", "m3", "m2"])
            #expect(modified.documentChanges.map(\.kind) == [.modified])
            #expect(modified.documentChanges[0].document["t"] == 4)
            try await messages.document("m2").delete()
            let removed = try #require(try await snapshots.next())
            #expect(removed.documents.map(\.id) == ["m1", "m3"])
            #expect(removed.documentChanges.map(\.kind) == [.removed])
            #expect(removed.documentChanges[0].document["text"] == "there")
        }
    }

    @Test func aDocumentListenerSeesTheDocumentComeAndGo() async throws {
        try await withFirestore { firestore in
            let document = try firestore.client(.admin).document("rooms/live")
            var snapshots = document.snapshots().makeAsyncIterator()
            let missing = try #require(try await snapshots.next())
            #expect(!missing.exists && missing.path == "rooms/live")
            try await document.setData(["n": 1])
            #expect(try await snapshots.next()?.data == ["n": 1])
            try await document.updateData(["n": 2])
            #expect(try await snapshots.next()?["n"] == 2)
            try await document.delete()
            #expect(try await snapshots.next()?.exists == false)
        }
    }

    // MARK: Rules and failures

    @Test func rulesDenialsArePermissionDenied() async throws {
        try await withFirestore(rules: Self.chatRules) { firestore in
            let conversation = try firestore.client(.admin).document("conversations/c1")
            try await conversation.setData(["participantIds": ["alice", "bob"]])
            let alice = try firestore.client(Self.alice)
            let eve = try firestore.client(Self.eve)
            let anonymous = try firestore.client(.unauthenticated)
            #expect(try await alice.document("conversations/c1").getDocument()["participantIds"] == ["alice", "bob"])
            try await alice.collection("conversations/c1/messages").document("m1").setData(["text": "hi"])

            for client in [eve, anonymous] {
                let get = try await assertFails { try await client.document("conversations/c1").getDocument() }
                #expect(get.status == 7 && get.message.hasPrefix("Missing or insufficient permissions."))
                try await assertFails {
                    try await client.collection("conversations/c1/messages").document("m2").setData(["text": "let me in"])
                }
            }
            let listen = await #expect(throws: ClientError.self) {
                for try await _ in eve.collection("conversations/c1/messages").order(by: "text").snapshots() {}
            }
            #expect(listen?.code == .permissionDenied && listen?.status == 7)
            let documentListen = await #expect(throws: ClientError.self) {
                for try await _ in eve.document("conversations/c1").snapshots() {}
            }
            #expect(documentListen?.code == .permissionDenied)
            var allowed = alice.collection("conversations/c1/messages").snapshots().makeAsyncIterator()
            #expect(try await allowed.next()?.documents.map(\.id) == ["m1"])
        }
    }

    @Test func badPathsFailTheirFirstOperation() async throws {
        // Unreachable: an operation that got as far as a request would fail as unavailable instead.
        let client = try FirestoreClient(
            address: EmulatorAddress(host: "127.0.0.1", port: 1), projectID: Self.projectID, identity: .admin)
        let collectionAsDocument = client.document("/conversations/")
        #expect(collectionAsDocument.path == "conversations")
        let documents = [collectionAsDocument, client.document(""), client.collection("rooms").document("")]
        for document in documents {
            let get = await #expect(throws: ClientError.self) { try await document.getDocument() }
            #expect(get?.code == .invalidArgument)
            await #expect(throws: ClientError.self) { try await document.setData(["n": 1]) }
            await #expect(throws: ClientError.self) { try await document.updateData(["n": 1]) }
            await #expect(throws: ClientError.self) { try await document.delete() }
            let listen = await #expect(throws: ClientError.self) { for try await _ in document.snapshots() {} }
            #expect(listen?.code == .invalidArgument)
        }
        let error = await #expect(throws: ClientError.self) { try await collectionAsDocument.getDocument() }
        #expect(
            error?.message
                == "Invalid document path \"conversations\": a document path needs an even number of segments, this one has 1."
        )
        let documentAsCollection = client.collection("conversations/c1")
        for collection in [documentAsCollection, client.collection(""), collectionAsDocument.collection("messages")] {
            let query = await #expect(throws: ClientError.self) { try await collection.getDocuments() }
            #expect(query?.code == .invalidArgument)
            await #expect(throws: ClientError.self) { try await collection.order(by: "t").limit(to: 1).getDocuments() }
            await #expect(throws: ClientError.self) { try await collection.addDocument(data: ["n": 1]) }
            let listen = await #expect(throws: ClientError.self) { for try await _ in collection.snapshots() {} }
            #expect(listen?.code == .invalidArgument)
        }
        // The builders never fail: a document under a bad collection path has an odd path itself.
        await #expect(throws: ClientError.self) { try await documentAsCollection.document("m1").getDocument() }
        await client.close()
    }

    @Test func anUnreachableEmulatorIsUnavailableAndCloseIsIdempotent() async throws {
        let nowhere = EmulatorAddress(host: "127.0.0.1", port: 1)
        let client = try FirestoreClient(address: nowhere, projectID: Self.projectID, identity: .admin)
        let error = await #expect(throws: ClientError.self) { try await client.document("a/b").getDocument() }
        #expect(error?.code == .unavailable && error?.status == 14)
        await client.close()
        await client.close()  // Again: nothing happens.
        let closed = await #expect(throws: ClientError.self) { try await client.document("a/b").getDocument() }
        #expect(closed?.code == .unavailable)

        let unused = try FirestoreClient(address: nowhere, projectID: Self.projectID, identity: .admin)
        await unused.close()
    }
}
