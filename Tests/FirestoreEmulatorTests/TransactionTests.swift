import EmulatorCore
import HTTPTypes
import Foundation
import Testing

@testable import FirestoreEmulator

@Suite struct TransactionTests {
    private func begin(_ session: FirestoreTestClient.Session, _ options: JSONValue = [:]) async throws -> String {
        let reply = try await session.request(.post, session.root + ":beginTransaction", body: ["options": options])
        return try #require(reply.json["transaction"]?.stringValue, "\(reply.json)")
    }

    @Test func conflictingTransactionIsAborted() async throws {
        try await FirestoreTestClient().run { session in
            try await session.set("counters/c", ["n": int(0)])
            let first = try await begin(session)
            let second = try await begin(session)
            for transaction in [first, second] {
                let read = try await session.request(.get, session.root + "/counters/c?transaction=\(transaction.addingPercentEncodingForQuery)")
                #expect(read.status == 200)
            }
            let write: JSONValue = ["update": ["name": .string(session.name("counters/c")), "fields": ["n": int(1)]]]
            #expect(try await session.commit([write], transaction: first).status == 200)
            let loser = try await session.commit([write], transaction: second)
            #expect(loser.status == 409 && loser.errorStatus == "ABORTED", "\(loser.json)")
            let reused = try await session.commit([write], transaction: first)
            #expect(reused.status == 400 && reused.errorMessage == "The referenced transaction has expired or is no longer valid.")
        }
    }

    /// Reads `counters/c` in each transaction.
    private func readCounter(_ session: FirestoreTestClient.Session, in transactions: String...) async throws {
        for transaction in transactions {
            let read = try await session.request(.get, session.root + "/counters/c?transaction=\(transaction.addingPercentEncodingForQuery)")
            #expect(read.status == 200, "\(read.json)")
        }
    }

    private func counterWrite(_ session: FirestoreTestClient.Session, _ n: Int) -> JSONValue {
        ["update": ["name": .string(session.name("counters/c")), "fields": ["n": int(n)]]]
    }

    /// Production's locks (wound-wait): a younger transaction's commit waits while an older one that read
    /// the document runs, and goes through if the older one ends without writing it.
    @Test func aYoungerCommitWaitsForAnOlderReader() async throws {
        try await FirestoreTestClient().run { session in
            try await session.set("counters/c", ["n": int(0)])
            let older = try await begin(session)
            let younger = try await begin(session)
            try await readCounter(session, in: older, younger)
            let commit = Task { try await session.commit([counterWrite(session, 1)], transaction: younger) }
            try await Task.sleep(for: .milliseconds(50))
            #expect(try await session.request(.post, session.root + ":rollback", body: ["transaction": .string(older)]).status == 200)
            let committed = try await commit.value
            #expect(committed.status == 200, "it waited instead of failing: \(committed.json)")
        }
    }

    /// When the older transaction writes the document, the waiting younger one is then ABORTED, and its
    /// retry keeps its place: a newer transaction waits for it in turn.
    @Test func theOlderTransactionWinsAndARetryKeepsItsPlace() async throws {
        try await FirestoreTestClient().run { session in
            try await session.set("counters/c", ["n": int(0)])
            let older = try await begin(session)
            let younger = try await begin(session)
            try await readCounter(session, in: older, younger)
            let lost = Task { try await session.commit([counterWrite(session, 2)], transaction: younger) }
            try await Task.sleep(for: .milliseconds(20))
            #expect(try await session.commit([counterWrite(session, 1)], transaction: older).status == 200)
            let aborted = try await lost.value
            #expect(aborted.errorStatus == "ABORTED", "the younger read what the older changed: \(aborted.json)")
            let retry = try await begin(session, ["readWrite": ["retryTransaction": .string(younger)]])
            let newcomer = try await begin(session)
            try await readCounter(session, in: retry, newcomer)
            let waiting = Task { try await session.commit([counterWrite(session, 3)], transaction: newcomer) }
            try await Task.sleep(for: .milliseconds(20))
            #expect(try await session.commit([counterWrite(session, 2)], transaction: retry).status == 200, "the retry kept its place")
            #expect(try await waiting.value.errorStatus == "ABORTED")
            #expect(try await session.request(.get, session.root + "/counters/c").json["fields"]?["n"] == int(2))
        }
    }

    /// An older transaction that never ends holds a younger commit up to the lock timeout, as in the
    /// official emulator (recorded: ABORTED "Transaction lock timeout." after 2 s), and the younger ends.
    @Test func aYoungerCommitGivesUpAtTheLockTimeout() async throws {
        try await FirestoreTestClient().run { session in
            try await session.set("counters/c", ["n": int(0)])
            let older = try await begin(session)
            let younger = try await begin(session)
            try await readCounter(session, in: older, younger)
            let timedOut = try await session.commit([counterWrite(session, 1)], transaction: younger)
            #expect(timedOut.status == 409 && timedOut.errorStatus == "ABORTED")
            #expect(timedOut.errorMessage == "Transaction lock timeout.")
            let again = try await session.commit([counterWrite(session, 1)], transaction: younger)
            #expect(again.errorMessage == "The referenced transaction has expired or is no longer valid.")
            #expect(try await session.commit([counterWrite(session, 1)], transaction: older).status == 200)
        }
    }

    @Test func queryInTransactionSeesPhantoms() async throws {
        try await FirestoreTestClient().run { session in
            let transaction = try await begin(session)
            let reply = try await session.request(
                .post, session.root + ":runQuery",
                body: ["structuredQuery": ["from": [["collectionId": "items"]]], "transaction": .string(transaction)])
            #expect(reply.status == 200)
            try await session.set("items/new", [:])
            let commit = try await session.commit([], transaction: transaction)
            #expect(commit.errorStatus == "ABORTED")
        }
    }

    @Test func readOnlyTransactionReadsAtItsReadTime() async throws {
        try await FirestoreTestClient().run { session in
            let written = try await session.set("docs/d", ["v": int(1)])
            let readTime = try #require(written.json["commitTime"]?.stringValue)
            try await session.set("docs/d", ["v": int(2)])
            let transaction = try await begin(session, ["readOnly": ["readTime": .string(readTime)]])
            let batch = try await session.request(
                .post, session.root + ":batchGet",
                body: ["documents": [.string(session.name("docs/d"))], "transaction": .string(transaction)])
            #expect(batch.json.arrayValue?.first?["found"]?["fields"]?["v"] == int(1), "\(batch.json)")
            let atTime = try await session.request(.get, session.root + "/docs/d?readTime=\(readTime)")
            #expect(atTime.json["fields"]?["v"] == int(1))
            let write: JSONValue = ["delete": .string(session.name("docs/d"))]
            #expect(try await session.commit([write], transaction: transaction).status == 400)
        }
    }

    @Test func newTransactionOnBatchGetIsReturnedFirst() async throws {
        try await FirestoreTestClient().run { session in
            let reply = try await session.request(
                .post, session.root + ":batchGet",
                body: ["documents": [.string(session.name("docs/none"))], "newTransaction": ["readWrite": [:]]])
            let responses = reply.json.arrayValue ?? []
            #expect(responses.count == 2 && responses[0]["transaction"] != nil)
            #expect(responses[1]["missing"]?.stringValue == session.name("docs/none") && responses[1]["readTime"] != nil)
            let rollback = try await session.request(
                .post, session.root + ":rollback", body: ["transaction": responses[0]["transaction"]!])
            #expect(rollback.status == 200)
        }
    }
}

extension String {
    /// Percent-encoded for a URL query value (base64's `+`, `/` and `=`).
    var addingPercentEncodingForQuery: String {
        addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? self
    }
}
