import EmulatorCore
import FirestoreWire
import Foundation
@testable import HearthTesting
import NIOHTTP1
import Suite
import SwiftProtobuf
import Synchronization
import Testing

/// `FirestoreClient` over gRPC against a real Firestore emulator on free ports, each test with its own suite
/// (rules are the emulator's state); the write encoding and the listen state machine alone, without I/O.
@Suite struct FirestoreClientTests {
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
            #expect(created["at"]?.timestampValue == created.updateTime)
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
                transaction.deleteDocument(client.document("rooms/other"))
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

    // MARK: Listeners

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
                #expect(get.status == 7 && get.message == "Missing or insufficient permissions.")
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

    // MARK: Without I/O

    @Test func writesAreEncodedAsTheSDKsSendThem() throws {
        let root = "projects/p/databases/(default)/documents"
        let merge = try WriteData(
            setting: ["a": ["b": 1, "at": .serverTimestamp, "gone": .delete], "odd-key": [:], "n": .increment(1)],
            merge: true, root: root
        ).write(to: root + "/c/d")
        #expect(merge.update.name == root + "/c/d" && !merge.hasCurrentDocument)
        #expect(merge.updateMask.fieldPaths == ["`odd-key`", "a.b", "a.gone"])
        #expect(merge.updateTransforms.map(\.fieldPath) == ["a.at", "n"])
        #expect(merge.update.fields["a"]?.mapValue.fields.keys.sorted() == ["b"])

        let update = try WriteData(
            updating: ["x.y": 1, "gone": .delete, "at": .serverTimestamp, "ref": .reference("u/a")], root: root
        ).write(to: root + "/c/d", exists: true)
        #expect(update.updateMask.fieldPaths == ["gone", "ref", "x.y"] && update.currentDocument.exists)
        #expect(update.update.fields["x"]?.mapValue.fields["y"]?.integerValue == 1)
        #expect(update.update.fields["ref"]?.referenceValue == root + "/u/a")
        #expect(update.updateTransforms.map(\.fieldPath) == ["at"])

        let set = try WriteData(setting: ["m": ["at": .serverTimestamp]], merge: false, root: root).write(to: root + "/c/d")
        #expect(!set.hasUpdateMask && set.update.fields["m"]?.mapValue.fields.isEmpty == true)
        #expect(throws: ClientError.self) { try WriteData(updating: ["m": ["x": .delete]], root: root) }
        #expect(throws: ClientError.self) { try WriteData(setting: ["a": [.serverTimestamp]], merge: false, root: root) }
    }

    @Test func theListenStateFollowsTheWatchProtocol() {
        let root = "projects/p/databases/(default)/documents"
        var state = ListenState(root: root) { $0.path < $1.path }
        typealias Response = Google_Firestore_V1_ListenResponse
        func document(_ id: String, targets: [Int32] = [ListenState.targetID]) -> Response {
            .with { $0.documentChange.document.name = root + "/c/" + id; $0.documentChange.targetIds = targets }
        }
        func target(_ kind: Google_Firestore_V1_TargetChange.TargetChangeType, _ ids: [Int32] = [1]) -> Response {
            .with { $0.targetChange.targetChangeType = kind; $0.targetChange.targetIds = ids }
        }
        let global = Response.with { $0.targetChange.readTime.seconds = 7 }

        #expect(state.receive(target(.add)) == .wait)
        #expect(state.receive(document("a")) == .wait)
        #expect(state.receive(document("x", targets: [9])) == .wait)
        // No snapshot before the target is CURRENT.
        #expect(state.receive(global) == .wait)
        #expect(state.receive(target(.current)) == .wait)
        guard case .emit(let first) = state.receive(global) else { Issue.record("no first snapshot"); return }
        #expect(first.documents.map(\.id) == ["a"] && first.readTime == Timestamp(seconds: 7, nanoseconds: 0))
        // Nothing changed: no snapshot.
        #expect(state.receive(global) == .wait)
        #expect(state.receive(document("b")) == .wait)
        let deleted = Response.with { $0.documentDelete.document = root + "/c/a"; $0.documentDelete.removedTargetIds = [1] }
        #expect(state.receive(deleted) == .wait)
        guard case .emit(let second) = state.receive(global) else { Issue.record("no second snapshot"); return }
        #expect(second.documentChanges.map(\.kind) == [.removed, .added] && second.documents.map(\.id) == ["b"])
        // RESET drops the documents until the server sends them again.
        #expect(state.receive(target(.reset)) == .wait)
        #expect(state.receive(global) == .wait)
        #expect(state.receive(target(.remove, [9])) == .wait)
        var denied = target(.remove)
        denied.targetChange.cause = .with { $0.code = 7; $0.message = "Missing or insufficient permissions." }
        let refusal = ClientError(.permissionDenied, status: 7, message: denied.targetChange.cause.message)
        #expect(state.receive(denied) == .fail(refusal))
        #expect(state.receive(target(.remove)) == .finish)
    }
}

// MARK: - Harness

extension FirestoreClientTests {
    /// A started suite with only the Firestore emulator, and the clients a test made (closed at the end).
    final class Harness: Sendable {
        let address: EmulatorAddress
        private let clients = Mutex<[FirestoreClient]>([])

        init(address: EmulatorAddress) { self.address = address }

        /// A client speaking for `identity`.
        func client(_ identity: ClientIdentity) throws -> FirestoreClient {
            let client = try FirestoreClient(
                address: address, projectID: FirestoreClientTests.projectID, identity: identity)
            clients.withLock { $0.append(client) }
            return client
        }

        func closeAll() async {
            for client in clients.withLock({ $0 }) { await client.close() }
        }
    }

    /// Runs `body` against a Firestore emulator of its own (free port), with `rules` loaded if given.
    func withFirestore(rules: String? = nil, _ body: (Harness) async throws -> Void) async throws {
        var config = SuiteConfig(projectID: Self.projectID)
        try config.apply(only: ["firestore"], project: nil, host: nil, ports: ["firestore=0", "hub=0"])
        let suite = try Suite(config: config)
        try await suite.start()
        let port = try #require(suite.emulator(.firestore)).port
        let harness = Harness(address: EmulatorAddress(host: "127.0.0.1", port: port))
        var failure: (any Error)?
        do {
            if let rules {
                _ = try await HTTPExchange.send(
                    .PUT, "\(harness.address.baseURL)/emulator/v1/projects/\(Self.projectID):securityRules",
                    json: ["rules": ["files": [["name": "firestore.rules", "content": .string(rules)]]]]
                ).checked()
            }
            try await body(harness)
        } catch {
            failure = error
        }
        await harness.closeAll()
        await suite.stop()
        if let failure { throw failure }
    }
}
