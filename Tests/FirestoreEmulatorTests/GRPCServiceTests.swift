import EmulatorCore
import EmulatorHTTP
import FirestoreWire
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import Logging
import SecurityRules
import SwiftProtobuf
import Testing

@testable import FirestoreEmulator

/// `google.firestore.v1.Firestore` driven through grpc-swift's in-process transport (no sockets) with the
/// generated client, as the SDKs call it.
@Suite struct GRPCServiceTests {
    @Test(arguments: GRPCHarness.Server.allCases) func documentsAreCreatedReadUpdatedListedAndDeleted(server: GRPCHarness.Server) async throws {
        try await GRPCHarness.run(server) { firestore in
            let client = firestore.client
            var create = Google_Firestore_V1_CreateDocumentRequest()
            create.parent = firestore.root
            create.collectionID = "rooms"
            create.documentID = "a"
            create.document.fields = ["n": .integer(1), "title": .string("hello"), "none": .with { $0.nullValue = .nullValue }]
            let created = try await client.createDocument(create, metadata: .owner)
            #expect(created.name == firestore.name("rooms/a") && created.fields["n"] == .integer(1))
            #expect(created.hasCreateTime && created.updateTime == created.createTime)
            await expectStatus(.alreadyExists) { try await client.createDocument(create, metadata: .owner) }

            create.documentID = ""
            let generated = try await client.createDocument(create, metadata: .owner)
            #expect(generated.name.split(separator: "/").last?.count == 20)

            var get = Google_Firestore_V1_GetDocumentRequest()
            get.name = firestore.name("rooms/a")
            get.mask.fieldPaths = ["title"]
            let masked = try await client.getDocument(get, metadata: .owner)
            #expect(Array(masked.fields.keys) == ["title"] && masked.updateTime == created.updateTime)

            var update = Google_Firestore_V1_UpdateDocumentRequest()
            update.document.name = firestore.name("rooms/a")
            update.document.fields = ["m": .integer(2)]
            update.updateMask.fieldPaths = ["m"]
            update.currentDocument.exists = true
            let updated = try await client.updateDocument(update, metadata: .owner)
            #expect(updated.fields == created.fields.merging(["m": .integer(2)]) { old, _ in old })
            #expect(updated.fields["none"]?.valueType == .nullValue(.nullValue))
            update.document.name = firestore.name("rooms/missing")
            await expectStatus(.notFound) { try await client.updateDocument(update, metadata: .owner) }

            var list = Google_Firestore_V1_ListDocumentsRequest()
            list.parent = firestore.root
            list.collectionID = "rooms"
            list.pageSize = 1
            let first = try await client.listDocuments(list, metadata: .owner)
            #expect(first.documents.count == 1 && !first.nextPageToken.isEmpty)
            list.pageToken = first.nextPageToken
            let second = try await client.listDocuments(list, metadata: .owner)
            #expect(second.documents.count == 1 && second.nextPageToken.isEmpty)
            #expect(Set((first.documents + second.documents).map(\.name)) == [firestore.name("rooms/a"), generated.name])

            var delete = Google_Firestore_V1_DeleteDocumentRequest()
            delete.name = firestore.name("rooms/a")
            delete.currentDocument.updateTime = created.updateTime
            await expectStatus(.failedPrecondition) { try await client.deleteDocument(delete, metadata: .owner) }
            delete.currentDocument.exists = true
            _ = try await client.deleteDocument(delete, metadata: .owner)
            get.clearMask()
            await expectStatus(.notFound, "Document \"\(firestore.name("rooms/a"))\" not found.") {
                try await client.getDocument(get, metadata: .owner)
            }
        }
    }

    @Test(arguments: GRPCHarness.Server.allCases) func malformedNamesAreInvalidArguments(server: GRPCHarness.Server) async throws {
        try await GRPCHarness.run(server) { firestore in
            var get = Google_Firestore_V1_GetDocumentRequest()
            get.name = firestore.name("rooms")
            await expectStatus(.invalidArgument) { try await firestore.client.getDocument(get, metadata: .owner) }
            var commit = Google_Firestore_V1_CommitRequest()
            commit.database = "projects/demo"
            await expectStatus(
                .invalidArgument,
                "Invalid database name \"projects/demo\": expected projects/{project}/databases/{database}."
            ) { try await firestore.client.commit(commit, metadata: .owner) }
            var query = Google_Firestore_V1_RunQueryRequest()
            query.parent = firestore.name("rooms")
            query.structuredQuery.from = [.with { $0.collectionID = "rooms" }]
            let invalidParent = "Invalid parent \"\(firestore.name("rooms"))\": a query parent is the documents root or a document."
            await expectStatus(.invalidArgument, invalidParent) {
                try await firestore.client.runQuery(query, metadata: .owner) { try await collect($0.messages) }
            }
        }
    }

    @Test(arguments: GRPCHarness.Server.allCases) func batchGetStreamsOneResponsePerDocument(server: GRPCHarness.Server) async throws {
        try await GRPCHarness.run(server) { firestore in
            try await firestore.set("rooms/a", ["n": .integer(1)])
            var batch = Google_Firestore_V1_BatchGetDocumentsRequest()
            batch.database = firestore.database
            batch.documents = [firestore.name("rooms/a"), firestore.name("rooms/none")]
            let responses = try await firestore.client.batchGetDocuments(batch, metadata: .owner) {
                try await collect($0.messages)
            }
            #expect(responses.count == 2)
            #expect(responses[0].found.fields == ["n": .integer(1)] && responses[0].hasReadTime)
            #expect(responses[1].missing == firestore.name("rooms/none") && responses[1].hasReadTime)

            batch.newTransaction.readWrite = .init()
            let inTransaction = try await firestore.client.batchGetDocuments(batch, metadata: .owner) {
                try await collect($0.messages)
            }
            #expect(inTransaction.count == 3 && !inTransaction[0].transaction.isEmpty && inTransaction[0].result == nil)
        }
    }

    @Test(arguments: GRPCHarness.Server.allCases) func runQueryStreamsResultsInOrder(server: GRPCHarness.Server) async throws {
        try await GRPCHarness.run(server) { firestore in
            for n in 1...4 { try await firestore.set("items/i\(n)", ["n": .integer(Int64(n))]) }
            var request = Google_Firestore_V1_RunQueryRequest()
            request.parent = firestore.root
            request.structuredQuery = .with { query in
                query.from = [.with { $0.collectionID = "items" }]
                query.where.fieldFilter = .with {
                    $0.field.fieldPath = "n"
                    $0.op = .greaterThanOrEqual
                    $0.value = .integer(2)
                }
                query.orderBy = [.with { $0.field.fieldPath = "n"; $0.direction = .descending }]
                query.offset = 1
            }
            let responses = try await firestore.client.runQuery(request, metadata: .owner) { try await collect($0.messages) }
            #expect(responses.map { $0.document.fields["n"] } == [.integer(3), .integer(2)])
            #expect(responses[0].skippedResults == 1 && responses.allSatisfy(\.hasReadTime))

            request.structuredQuery.from = [.with { $0.collectionID = "empty" }]
            let empty = try await firestore.client.runQuery(request, metadata: .owner) { try await collect($0.messages) }
            #expect(empty.count == 1 && !empty[0].hasDocument && empty[0].hasReadTime)
        }
    }

    @Test(arguments: GRPCHarness.Server.allCases) func aggregationQueriesCountSumAndAverage(server: GRPCHarness.Server) async throws {
        try await GRPCHarness.run(server) { firestore in
            for n in 1...4 { try await firestore.set("items/i\(n)", ["n": .integer(Int64(n))]) }
            var request = Google_Firestore_V1_RunAggregationQueryRequest()
            request.parent = firestore.root
            request.structuredAggregationQuery.structuredQuery.from = [.with { $0.collectionID = "items" }]
            request.structuredAggregationQuery.aggregations = [
                .with { $0.alias = "count"; $0.count = .init() },
                .with { $0.alias = "total"; $0.sum.field.fieldPath = "n" },
                .with { $0.alias = "mean"; $0.avg.field.fieldPath = "n" },
            ]
            let responses = try await firestore.client.runAggregationQuery(request, metadata: .owner) {
                try await collect($0.messages)
            }
            #expect(responses.count == 1 && responses[0].hasReadTime)
            #expect(
                responses[0].result.aggregateFields == ["count": .integer(4), "total": .integer(10), "mean": .double(2.5)])
        }
    }

    @Test(arguments: GRPCHarness.Server.allCases) func transactionsReadAndCommitAndContentionAborts(server: GRPCHarness.Server) async throws {
        try await GRPCHarness.run(server) { firestore in
            try await firestore.set("counters/c", ["n": .integer(0)])
            let client = firestore.client
            var begin = Google_Firestore_V1_BeginTransactionRequest()
            begin.database = firestore.database
            let first = try await client.beginTransaction(begin, metadata: .owner).transaction
            let second = try await client.beginTransaction(begin, metadata: .owner).transaction
            for transaction in [first, second] {
                var get = Google_Firestore_V1_GetDocumentRequest()
                get.name = firestore.name("counters/c")
                get.transaction = transaction
                #expect(try await client.getDocument(get, metadata: .owner).fields["n"] == .integer(0))
            }
            var commit = Google_Firestore_V1_CommitRequest()
            commit.database = firestore.database
            commit.writes = [.with { $0.update.name = firestore.name("counters/c"); $0.update.fields = ["n": .integer(1)] }]
            commit.transaction = first
            let committed = try await client.commit(commit, metadata: .owner)
            #expect(committed.writeResults.count == 1 && committed.writeResults[0].updateTime == committed.commitTime)
            commit.transaction = second
            await expectStatus(.aborted) { try await client.commit(commit, metadata: .owner) }

            let third = try await client.beginTransaction(begin, metadata: .owner).transaction
            var rollback = Google_Firestore_V1_RollbackRequest()
            rollback.database = firestore.database
            rollback.transaction = third
            _ = try await client.rollback(rollback, metadata: .owner)
            commit.transaction = third
            await expectStatus(.invalidArgument, "The referenced transaction has expired or is no longer valid.") {
                try await client.commit(commit, metadata: .owner)
            }
        }
    }

    @Test(arguments: GRPCHarness.Server.allCases) func batchWriteReportsAStatusPerWrite(server: GRPCHarness.Server) async throws {
        try await GRPCHarness.run(server) { firestore in
            var request = Google_Firestore_V1_BatchWriteRequest()
            request.database = firestore.database
            request.writes = [
                .with { $0.update.name = firestore.name("rooms/a"); $0.update.fields = ["n": .integer(1)] },
                .with { $0.delete = firestore.name("rooms/b"); $0.currentDocument.exists = true },
            ]
            let response = try await firestore.client.batchWrite(request, metadata: .owner)
            #expect(response.writeResults.count == 2 && response.writeResults[0].hasUpdateTime)
            #expect(response.status.map(\.code) == [0, Int32(RPCError.Code.notFound.rawValue)])
        }
    }

    @Test(arguments: GRPCHarness.Server.allCases) func partitionsAndCollectionIDs(server: GRPCHarness.Server) async throws {
        try await GRPCHarness.run(server) { firestore in
            for n in 1...6 { try await firestore.set("items/i\(n)", ["n": .integer(Int64(n))]) }
            try await firestore.set("rooms/r/messages/m", [:])
            var partition = Google_Firestore_V1_PartitionQueryRequest()
            partition.parent = firestore.root
            partition.structuredQuery.from = [.with { $0.collectionID = "items" }]
            partition.partitionCount = 3
            let partitions = try await firestore.client.partitionQuery(partition, metadata: .owner).partitions
            #expect(partitions.count == 2 && partitions.allSatisfy { $0.values.first?.referenceValue.isEmpty == false })

            var collections = Google_Firestore_V1_ListCollectionIdsRequest()
            collections.parent = firestore.root
            let ids = try await firestore.client.listCollectionIds(collections, metadata: .owner).collectionIds
            #expect(ids == ["items", "rooms"])
            collections.parent = firestore.name("rooms/r")
            #expect(try await firestore.client.listCollectionIds(collections, metadata: .owner).collectionIds == ["messages"])
        }
    }

    @Test(arguments: GRPCHarness.Server.allCases) func rulesDenyWithPermissionDenied(server: GRPCHarness.Server) async throws {
        try await GRPCHarness.run(server) { firestore in
            firestore.loadRules(
                """
                rules_version = '2';
                service cloud.firestore {
                  match /databases/{database}/documents {
                    match /profiles/{uid} {
                      allow read, write: if request.auth != null && request.auth.uid == uid;
                    }
                  }
                }
                """)
            let client = firestore.client
            var create = Google_Firestore_V1_CreateDocumentRequest()
            create.parent = firestore.root
            create.collectionID = "profiles"
            create.documentID = "alice"
            create.document.fields = ["name": .string("Alice")]
            await expectStatus(.permissionDenied, "Missing or insufficient permissions.") {
                try await client.createDocument(create, metadata: [:])
            }
            await expectStatus(.permissionDenied, "Missing or insufficient permissions.") {
                try await client.createDocument(create, metadata: .user("bob"))
            }
            _ = try await client.createDocument(create, metadata: .user("alice"))

            var get = Google_Firestore_V1_GetDocumentRequest()
            get.name = firestore.name("profiles/alice")
            #expect(try await client.getDocument(get, metadata: .user("alice")).fields["name"] == .string("Alice"))
            #expect(try await client.getDocument(get, metadata: .owner).fields["name"] == .string("Alice"))
            await expectStatus(.permissionDenied, "Missing or insufficient permissions.") {
                try await client.getDocument(get, metadata: .user("bob"))
            }
            var query = Google_Firestore_V1_RunQueryRequest()
            query.parent = firestore.root
            query.structuredQuery.from = [.with { $0.collectionID = "profiles" }]
            await expectStatus(.permissionDenied, "Missing or insufficient permissions.") {
                try await client.runQuery(query, metadata: .user("alice")) { try await collect($0.messages) }
            }
        }
    }

    // MARK: Write stream

    @Test(arguments: GRPCHarness.Server.allCases) func writeStreamRunsAsTheMobileSDKsDriveIt(server: GRPCHarness.Server) async throws {
        try await GRPCHarness.run(server) { firestore in
            try await firestore.set("rooms/read", ["n": .integer(1)])
            var get = Google_Firestore_V1_GetDocumentRequest()
            get.name = firestore.name("rooms/read")
            let readVersion = try await firestore.client.getDocument(get, metadata: .owner).updateTime

            try await firestore.writeStream(metadata: .user("alice")) { stream in
                var handshake = Google_Firestore_V1_WriteRequest()
                handshake.database = firestore.database
                let opened = try await stream.send(handshake)
                #expect(!opened.streamID.isEmpty && !opened.streamToken.isEmpty && opened.writeResults.isEmpty)

                // A set with a server timestamp, as `setDoc(ref, {at: serverTimestamp()})` sends it.
                var first = Google_Firestore_V1_WriteRequest()
                first.streamToken = opened.streamToken
                first.writes = [
                    .with {
                        $0.update.name = firestore.name("rooms/a")
                        $0.update.fields = ["n": .integer(1)]
                        $0.updateTransforms = [.with { $0.fieldPath = "at"; $0.setToServerValue = .requestTime }]
                    }
                ]
                let committed = try await stream.send(first)
                #expect(!committed.streamToken.isEmpty && committed.streamToken != opened.streamToken)
                #expect(committed.hasCommitTime && committed.writeResults.count == 1)
                #expect(committed.writeResults[0].updateTime == committed.commitTime)
                var stamp = committed.commitTime  // to the millisecond, as server timestamps are
                stamp.nanos -= stamp.nanos % 1_000_000
                #expect(committed.writeResults[0].transformResults == [.with { $0.timestampValue = stamp }])

                // A transaction's commit: a write plus a verify of the document it read.
                var second = Google_Firestore_V1_WriteRequest()
                second.streamToken = committed.streamToken
                second.writes = [
                    .with {
                        $0.update.name = firestore.name("rooms/b")
                        $0.update.fields = ["from": .string("read")]
                        $0.currentDocument.exists = false
                    },
                    .with { $0.verify = firestore.name("rooms/read"); $0.currentDocument.updateTime = readVersion },
                ]
                let verified = try await stream.send(second)
                #expect(verified.writeResults.count == 2 && verified.commitTime.date > committed.commitTime.date)

                // The SDK's teardown: an empty batch.
                var empty = Google_Firestore_V1_WriteRequest()
                empty.streamToken = verified.streamToken
                let acknowledged = try await stream.send(empty)
                #expect(!acknowledged.streamToken.isEmpty && acknowledged.writeResults.isEmpty)
            }
            get.name = firestore.name("rooms/b")
            #expect(try await firestore.client.getDocument(get, metadata: .owner).fields["from"] == .string("read"))
        }
    }

    @Test(arguments: GRPCHarness.Server.allCases) func aFailingBatchEndsTheWriteStreamWithItsStatus(server: GRPCHarness.Server) async throws {
        try await GRPCHarness.run(server) { firestore in
            try await firestore.set("rooms/read", ["n": .integer(1)])
            // The document changes after the transaction read it: the verify fails.
            let stale = Google_Protobuf_Timestamp(seconds: 1, nanos: 0)
            for attempt in 1...2 {
                try await firestore.writeStream(metadata: .owner) { stream in
                    var handshake = Google_Firestore_V1_WriteRequest()
                    handshake.database = firestore.database
                    let opened = try await stream.send(handshake)
                    var batch = Google_Firestore_V1_WriteRequest()
                    batch.streamToken = opened.streamToken
                    batch.writes = [
                        .with {
                            $0.update.name = firestore.name("rooms/c")
                            $0.update.fields = ["attempt": .integer(Int64(attempt))]
                        },
                        .with { $0.verify = firestore.name("rooms/read"); $0.currentDocument.updateTime = stale },
                    ]
                    await expectStatus(.failedPrecondition) { try await stream.send(batch) }
                }
            }
            var get = Google_Firestore_V1_GetDocumentRequest()
            get.name = firestore.name("rooms/c")
            await expectStatus(.notFound) { try await firestore.client.getDocument(get, metadata: .owner) }
        }
    }

    @Test(arguments: GRPCHarness.Server.allCases) func writeStreamRefusesStaleTokensAndDeniedWrites(server: GRPCHarness.Server) async throws {
        try await GRPCHarness.run(server) { firestore in
            firestore.loadRules(
                """
                rules_version = '2';
                service cloud.firestore {
                  match /databases/{database}/documents {
                    match /rooms/{id} { allow write: if request.auth != null; }
                  }
                }
                """)
            let handshake = Google_Firestore_V1_WriteRequest.with { $0.database = firestore.database }
            let write = Google_Firestore_V1_Write.with {
                $0.update.name = firestore.name("rooms/a")
                $0.update.fields = ["n": .integer(1)]
            }
            try await firestore.writeStream(metadata: .user("alice")) { stream in
                let opened = try await stream.send(handshake)
                var batch = Google_Firestore_V1_WriteRequest()
                batch.streamToken = opened.streamToken
                batch.writes = [write]
                let answered = try await stream.send(batch)
                // The handshake's token again, as an SDK sends it when it pipelines writes: accepted.
                let pipelined = try await stream.send(batch)
                #expect(pipelined.writeResults.count == 1)
                // A newer token, then the older one again: earlier tokens may not be used any more.
                batch.streamToken = answered.streamToken
                _ = try await stream.send(batch)
                batch.streamToken = opened.streamToken
                await expectStatus(.invalidArgument, "The stream token is older than one this write stream's client has sent.") {
                    try await stream.send(batch)
                }
            }
            try await firestore.writeStream(metadata: [:]) { stream in
                let opened = try await stream.send(handshake)
                var batch = Google_Firestore_V1_WriteRequest()
                batch.streamToken = opened.streamToken
                batch.writes = [write]
                await expectStatus(.permissionDenied, "Missing or insufficient permissions.") { try await stream.send(batch) }
            }
            try await firestore.writeStream(metadata: .owner) { stream in
                var withWrites = handshake
                withWrites.writes = [write]
                await expectStatus(.invalidArgument) { try await stream.send(withWrites) }
            }
        }
    }
}

/// The Write stream's protocol alone, without I/O.
@Suite struct WriteStreamTests {
    let database = "projects/p/databases/(default)"

    @Test func aTokenAcknowledgedTwiceIsTakenAsPipelinedWritesSendIt() throws {
        var stream = WriteStream(id: "s")
        guard case .handshake(_, let first) = try stream.receive(database: database, streamID: "", token: [], hasWrites: false)
        else {
            Issue.record("expected a handshake")
            return
        }
        guard case .commit(_, let second) = try stream.receive(database: "", streamID: "", token: first, hasWrites: true),
            case .commit = try stream.receive(database: "", streamID: "", token: first, hasWrites: true),
            case .commit = try stream.receive(database: "", streamID: "", token: second, hasWrites: true)
        else {
            Issue.record("expected commits")
            return
        }
        #expect(throws: FirestoreError.self) { try stream.receive(database: "", streamID: "", token: first, hasWrites: true) }
    }

    @Test func handshakeThenBatchesEachWithTheLastToken() throws {
        var stream = WriteStream(id: "s")
        guard case .handshake("s", let first) = try stream.receive(database: database, streamID: "", token: [], hasWrites: false)
        else {
            Issue.record("expected a handshake")
            return
        }
        #expect(!first.isEmpty && stream.database?.description == database)
        guard case .commit(let named, let second) = try stream.receive(database: "", streamID: "", token: first, hasWrites: true)
        else {
            Issue.record("expected a commit")
            return
        }
        #expect(named.description == database && second != first)
        let third = try stream.receive(database: database, streamID: "s", token: second, hasWrites: false)
        guard case .commit(_, let token) = third else {
            Issue.record("expected a commit, got \(third)")
            return
        }
        #expect(![first, second].contains(token))
    }

    @Test func requestsOutOfProtocolAreInvalid() throws {
        var fresh = WriteStream(id: "s")
        #expect(throws: FirestoreError.self) { try fresh.receive(database: self.database, streamID: "", token: [], hasWrites: true) }
        #expect(throws: FirestoreError.self) { try fresh.receive(database: self.database, streamID: "old", token: [1], hasWrites: false) }
        #expect(throws: FirestoreError.self) { try fresh.receive(database: "projects/p", streamID: "", token: [], hasWrites: false) }

        var open = WriteStream(id: "s")
        guard case .handshake(_, let token) = try open.receive(database: database, streamID: "", token: [], hasWrites: false) else {
            Issue.record("expected a handshake")
            return
        }
        let unsent = token.map { $0 ^ 0xFF }
        for (name, id, sent) in [
            ("", "", [UInt8]()), ("projects/q/databases/(default)", "", token), ("", "other", token), ("", "", unsent),
            ("", "", Array("garbage".utf8)),
        ] {
            var copy = open
            #expect(throws: FirestoreError.self) { try copy.receive(database: name, streamID: id, token: sent, hasWrites: true) }
        }
    }
}

// MARK: - Harness

/// A `FirestoreGRPCService` behind a gRPC server on a loopback port, and a generated HTTP/2 client connected
/// to it. The server is grpc-swift's own (every call through grpc-swift's per-call tasks: the reference),
/// or the Firestore emulator's port (every call served on its connection's event loop:
/// `GRPCConnectionHandler`, `ListenCall`, `WriteCall`).
struct GRPCHarness {
    static let projectID = "demo-grpc"
    let service: FirestoreService
    let client: Google_Firestore_V1_Firestore.Client<HTTP2ClientTransport.Posix>

    /// Which server answers.
    enum Server: CaseIterable, Sendable {
        /// grpc-swift's HTTP/2 server with the service.
        case grpcSwift
        /// The Firestore emulator's port.
        case emulator
    }

    /// `projects/{p}/databases/(default)`.
    var database: String { "projects/\(Self.projectID)/databases/(default)" }
    /// The documents root.
    var root: String { database + "/documents" }
    /// The full name of the document at `path`.
    func name(_ path: String) -> String { root + "/" + path }

    /// Runs `body` against a fresh emulator store served by `server`.
    static func run(_ server: Server = .grpcSwift, _ body: (GRPCHarness) async throws -> Void) async throws {
        let clock = SystemClock()
        let logger = Logger(label: "hearth.test.grpc")
        switch server {
        case .grpcSwift:
            let store = try FirestoreStore(clock: clock)
            let service = FirestoreService(store: store, rules: FirestoreRules(logger: logger), clock: clock)
            let transport = HTTP2ServerTransport.Posix(
                address: .ipv4(host: "127.0.0.1", port: 0), transportSecurity: .plaintext)
            try await withGRPCServer(transport: transport, services: [FirestoreGRPCService(service: service)]) { server in
                guard let port = try await server.listeningAddress?.ipv4?.port else {
                    Issue.record("the server did not listen")
                    return
                }
                try await withClient(port: port) { try await body(GRPCHarness(service: service, client: $0)) }
            }
        case .emulator:
            let emulator = try FirestoreEmulator(projectID: projectID, port: 0, clock: clock, logger: logger)
            let port = try await emulator.start()
            do {
                let service = FirestoreService(store: emulator.store, rules: emulator.rules, clock: clock)
                try await withClient(port: port) { try await body(GRPCHarness(service: service, client: $0)) }
            } catch {
                await emulator.stop()
                throw error
            }
            await emulator.stop()
        }
    }

    private static func withClient(
        port: Int, _ body: (Google_Firestore_V1_Firestore.Client<HTTP2ClientTransport.Posix>) async throws -> Void
    ) async throws {
        try await withGRPCClient(
            transport: .http2NIOPosix(target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext)
        ) { try await body(Google_Firestore_V1_Firestore.Client(wrapping: $0)) }
    }

    /// Sets the document at `path` with a commit.
    func set(_ path: String, _ fields: [String: Google_Firestore_V1_Value]) async throws {
        var commit = Google_Firestore_V1_CommitRequest()
        commit.database = database
        commit.writes = [.with { $0.update.name = name(path); $0.update.fields = fields }]
        _ = try await client.commit(commit, metadata: .owner)
    }

    /// Loads `text` as the project's rules.
    func loadRules(_ text: String) {
        let diagnostics = service.rules.setRules([RulesSource(fileName: "firestore.rules", text: text)], project: Self.projectID)
        #expect(diagnostics.filter { $0.severity == .error }.isEmpty, "\(diagnostics)")
    }

    /// Opens a Write stream with `metadata` and runs `body` with it; the stream ends when `body` returns.
    func writeStream(metadata: Metadata, _ body: @escaping @Sendable (inout WriteStreamClient) async throws -> Void)
        async throws
    {
        let (requests, continuation) = AsyncStream.makeStream(of: Google_Firestore_V1_WriteRequest.self)
        try await client.write(
            metadata: metadata,
            requestProducer: { writer in
                for await request in requests { try await writer.write(request) }
            },
            onResponse: { response in
                defer { continuation.finish() }
                var stream = WriteStreamClient(requests: continuation, responses: response.messages.makeAsyncIterator())
                try await body(&stream)
            })
    }
}

/// The client end of a Write stream: one response awaited per request sent.
struct WriteStreamClient {
    let requests: AsyncStream<Google_Firestore_V1_WriteRequest>.Continuation
    var responses: RPCAsyncSequence<Google_Firestore_V1_WriteResponse, any Error>.AsyncIterator

    /// Sends `request` and waits for its response; throws the stream's status if it ends instead.
    mutating func send(_ request: Google_Firestore_V1_WriteRequest) async throws -> Google_Firestore_V1_WriteResponse {
        requests.yield(request)
        guard let response = try await responses.next() else {
            throw RPCError(code: .unknown, message: "The write stream ended without a response or a status.")
        }
        return response
    }
}

/// Every element of `sequence`, in order.
func collect<Sequence: AsyncSequence>(_ sequence: Sequence) async throws -> [Sequence.Element] {
    try await sequence.reduce(into: []) { $0.append($1) }
}

/// Expects `body` to fail with the gRPC status `code` (and `message`, when given).
func expectStatus<Result>(
    _ code: RPCError.Code, _ message: String? = nil, sourceLocation: Testing.SourceLocation = #_sourceLocation,
    _ body: () async throws -> Result
) async {
    do {
        _ = try await body()
        Issue.record("expected \(code), got a result", sourceLocation: sourceLocation)
    } catch let error as RPCError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        // A rules denial goes on with why, on the next line.
        if let message { #expect(error.message == message || error.message.hasPrefix(message + "\n"), "\(error.message)", sourceLocation: sourceLocation) }
    } catch {
        Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
    }
}

extension Metadata {
    /// `authorization: Bearer owner` (admin, bypasses rules).
    static var owner: Metadata { ["authorization": "Bearer owner"] }

    /// `authorization: Bearer <unsigned ID token of uid>`.
    static func user(_ uid: String) -> Metadata {
        ["authorization": .string("Bearer " + UnsignedJWT(payload: ["sub": .string(uid), "user_id": .string(uid)]).encoded)]
    }
}

extension Google_Firestore_V1_Value {
    /// An `integer_value`.
    static func integer(_ value: Int64) -> Self { .with { $0.integerValue = value } }
    /// A `double_value`.
    static func double(_ value: Double) -> Self { .with { $0.doubleValue = value } }
    /// A `string_value`.
    static func string(_ value: String) -> Self { .with { $0.stringValue = value } }
}
