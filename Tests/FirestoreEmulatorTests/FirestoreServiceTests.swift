import EmulatorCore
import Logging
import SecurityRules
import Testing

@testable import FirestoreEmulator

/// The transport-neutral service on its own: typed requests in, typed results or `FirestoreError` out, no
/// wire format and no network.
@Suite struct FirestoreServiceTests {
    let database = DatabaseName(project: "demo-service", database: "(default)")
    let service: FirestoreService
    let admin = CallContext(credential: .owner, now: Timestamp(seconds: 0, nanos: 0))

    init() throws {
        let logger = Logger(label: "hearth.test.service")
        service = FirestoreService(
            store: try FirestoreStore(clock: SystemClock()), rules: FirestoreRules(logger: logger), clock: SystemClock())
    }

    func path(_ text: String) -> DocumentPath { DocumentPath(segments: text.split(separator: "/").map(String.init)) }

    @Test func documentsAreCreatedReadUpdatedAndDeleted() throws {
        let created = try service.createDocument(
            CreateDocumentRequest(database: database, path: path("rooms/a"), fields: ["n": .integer(1)]), admin)
        #expect(created.fields == ["n": .integer(1)])
        #expect(throws: FirestoreError.self) {
            try service.createDocument(CreateDocumentRequest(database: database, path: path("rooms/a"), fields: [:]), admin)
        }
        let updated = try service.updateDocument(
            UpdateDocumentRequest(
                database: database, path: path("rooms/a"), fields: ["m": .string("x")], updateMask: [FieldPath(segments: ["m"])],
                mask: [FieldPath(segments: ["m"])]),
            admin)
        #expect(updated.fields == ["m": .string("x")], "masked to m")
        let read = try service.getDocument(GetDocumentRequest(database: database, path: path("rooms/a")), admin)
        #expect(read.fields == ["n": .integer(1), "m": .string("x")])
        try service.deleteDocument(DeleteDocumentRequest(database: database, path: path("rooms/a")), admin)
        let missing = #expect(throws: FirestoreError.self) {
            try service.getDocument(GetDocumentRequest(database: database, path: path("rooms/a")), admin)
        }
        #expect(missing?.status == .notFound)
        #expect(missing?.message == "Document \"projects/demo-service/databases/(default)/documents/rooms/a\" not found.")
    }

    @Test func batchesQueriesAndListings() throws {
        let writes = (0..<5).map { Write(path: path("rooms/r\($0)"), operation: .update(fields: ["n": .integer(Int64($0))])) }
        let outcome = try service.commit(CommitRequest(database: database, writes: writes), admin)
        #expect(outcome.results.count == 5)
        let got = try service.batchGet(
            BatchGetRequest(database: database, paths: [path("rooms/r1"), path("rooms/none")]), admin)
        #expect(got.documents.map { $0.document?.fields["n"] } == [.integer(1), nil])
        #expect(got.readTime >= outcome.commitTime)
        var query = StructuredQuery(parent: DocumentPath(segments: []), collectionID: "rooms")
        query.orderBy = [QueryOrder(field: FieldPath(segments: ["n"]), descending: true)]
        query.offset = 1
        query.limit = 2
        let result = try service.runQuery(RunQueryRequest(database: database, query: query), admin)
        #expect(result.documents.map(\.path) == [path("rooms/r3"), path("rooms/r2")])
        #expect(result.skipped == 1)
        let ids = try service.listCollectionIDs(
            ListCollectionIDsRequest(database: database, parent: DocumentPath(segments: []), pageSize: 10), admin)
        #expect(ids.ids == ["rooms"] && ids.next == nil)
        let tooMany = #expect(throws: FirestoreError.self) {
            try service.commit(CommitRequest(database: database, writes: Array(repeating: writes[0], count: 501)), admin)
        }
        #expect(tooMany?.message == "maximum 500 writes allowed per request")
    }

    @Test func aBatchWriteAnswersEachWriteOnItsOwn() throws {
        let results = try service.batchWrite(
            BatchWriteRequest(
                database: database,
                writes: [
                    Write(path: path("rooms/a"), operation: .update(fields: [:])),
                    Write(path: path("rooms/b"), operation: .delete, precondition: .exists(true)),
                ]),
            admin)
        guard case .success = results[0], case .failure(let error) = results[1] else {
            Issue.record("expected a success then a failure: \(results)")
            return
        }
        #expect(error.status == .notFound)
    }

    @Test func rulesDecideForCallersButNotForTheAdmin() throws {
        _ = service.rules.setRules(
            [RulesSource(fileName: "firestore.rules", text: "rules_version = '2';\nservice cloud.firestore { match /databases/{d}/documents { match /{doc=**} { allow read: if false; } } }")],
            project: database.project)
        let user = CallContext(credential: Credential(authorizationHeader: nil), now: admin.now)
        let denied = #expect(throws: FirestoreError.self) {
            try service.getDocument(GetDocumentRequest(database: database, path: path("rooms/a")), user)
        }
        #expect(denied == .permissionDenied(because: "false for 'get' @ L2"))
        #expect(denied?.message == "Missing or insufficient permissions.\nfalse for 'get' @ L2")
        #expect(throws: FirestoreError.self) {
            try service.listCollectionIDs(
                ListCollectionIDsRequest(database: database, parent: DocumentPath(segments: []), pageSize: 10), user)
        }
        #expect(throws: FirestoreError.self, "the admin reads; the document is missing") {
            try service.getDocument(GetDocumentRequest(database: database, path: path("rooms/a")), admin)
        }
    }

    /// A list rule holds for every document a range filter admits, as the official engine proves it
    /// (conformance/differential/corpus/rules_queries.json has its answers): `age > 18` by `age > 19`, not by
    /// `age > 17` (17.5 is admitted), and not in forms the official engine does not prove.
    @Test(arguments: [
        ("resource.data.age > 18", FieldOperator.greaterThan, FirestoreValue.integer(19), true),
        ("resource.data.age > 18", .greaterThan, .integer(17), false),
        ("resource.data.age >= 18", .greaterThan, .integer(17), false),
        ("resource.data.age > 18", .greaterThan, .double(18.5), false),
        ("resource.data.age >= 18.5", .greaterThan, .integer(19), true),
        ("resource.data.age > 18 && resource.data.age < 30", .lessThan, .integer(29), false),
        ("!(resource.data.age < 18)", .greaterThan, .integer(19), false),
        ("resource.data.age is int", .greaterThan, .integer(19), false),
        ("resource.data.age + 1 > 19", .greaterThan, .integer(19), false),
        ("resource.data.age != 18", .notEqual, .integer(18), true),
    ])
    func listRulesHoldForEveryValueARangeAdmits(rule: String, op: FieldOperator, bound: FirestoreValue, allowed: Bool) throws {
        _ = service.rules.setRules(
            [RulesSource(fileName: "firestore.rules", text: "rules_version = '2';\nservice cloud.firestore { match /databases/{d}/documents { match /people/{p} { allow list: if \(rule); } } }")],
            project: database.project)
        var query = StructuredQuery(parent: DocumentPath(segments: []), collectionID: "people")
        query.filter = .field(FieldPath(segments: ["age"]), op, bound)
        let user = CallContext(credential: Credential(authorizationHeader: nil), now: admin.now)
        let result = Result { () throws(FirestoreError) in try service.runQuery(RunQueryRequest(database: database, query: query), user) }
        #expect(((try? result.get()) != nil) == allowed, "\(rule) under age \(op.rawValue) \(bound)")
    }

    @Test func theWriteStreamShakesHandsThenCommits() async throws {
        let name = database.description
        let writes: @Sendable (DatabaseName) throws(FirestoreError) -> [Write] = { database in
            [Write(path: DocumentPath(segments: ["rooms", "w"]), operation: .update(fields: ["n": .integer(7)]))]
        }
        let (requests, input) = AsyncThrowingStream<WriteStreamRequest, any Error>.makeStream()
        input.yield(WriteStreamRequest(database: name, streamID: "", token: [], hasWrites: false) { _ throws(FirestoreError) in [] })
        var answers: [WriteStreamResponse] = []
        try await service.serveWrite(requests, authorization: "Bearer owner") { answer in
            answers.append(answer)
            if answers.count == 1 {
                input.yield(WriteStreamRequest(database: name, streamID: answer.streamID!, token: answer.token, hasWrites: true, writes: writes))
            } else {
                input.finish()
            }
        }
        #expect(answers.count == 2)
        #expect(answers[0].streamID != nil && answers[0].outcome == nil)
        #expect(answers[1].outcome?.results.count == 1 && answers[1].token != answers[0].token)
        let read = try service.getDocument(GetDocumentRequest(database: database, path: path("rooms/w")), admin)
        #expect(read.fields == ["n": .integer(7)])
    }

    @Test func aListenStreamDeliversATargetAndLaterCommits() async throws {
        _ = try service.commit(
            CommitRequest(database: database, writes: [Write(path: path("rooms/a"), operation: .update(fields: [:]))]), admin)
        let (requests, input) = AsyncThrowingStream<ListenRequest, any Error>.makeStream()
        let target = ListenTarget(id: 1, kind: .documents([path("rooms/a")]))
        input.yield(ListenRequest(database: database.description, change: .add(targetID: 1) { _ throws(FirestoreError) in target }))
        var changed: [DocumentPath] = []
        var snapshots = 0
        try await service.serveListen(requests, credential: .owner) { events, _ in
            for event in events {
                switch event {
                case .documentChange(let document, _, _): changed.append(document.path)
                case .targetChange(.noChange, let ids, _, _, _) where ids.isEmpty: snapshots += 1
                default: break
                }
            }
            if snapshots == 1 {
                _ = try service.commit(
                    CommitRequest(
                        database: database, writes: [Write(path: path("rooms/a"), operation: .update(fields: ["n": .integer(2)]))]),
                    admin)
            } else if snapshots == 2 {
                input.finish()
            }
        }
        #expect(changed == [path("rooms/a"), path("rooms/a")], "the initial document, then its change")
    }
}
