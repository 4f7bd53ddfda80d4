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

    @Test func theOlderTransactionWinsAndARetryKeepsItsPlace() async throws {
        try await FirestoreTestClient().run { session in
            try await session.set("counters/c", ["n": int(0)])
            let older = try await begin(session)
            let younger = try await begin(session)
            for transaction in [older, younger] {
                _ = try await session.request(.get, session.root + "/counters/c?transaction=\(transaction.addingPercentEncodingForQuery)")
            }
            let write: JSONValue = ["update": ["name": .string(session.name("counters/c")), "fields": ["n": int(1)]]]
            let lost = try await session.commit([write], transaction: younger)
            #expect(lost.errorStatus == "ABORTED", "the younger yields to the older reader")
            let retry = try await begin(session, ["readWrite": ["retryTransaction": .string(younger)]])
            #expect(try await session.commit([write], transaction: older).status == 200)
            let newcomer = try await begin(session)
            for transaction in [retry, newcomer] {
                _ = try await session.request(.get, session.root + "/counters/c?transaction=\(transaction.addingPercentEncodingForQuery)")
            }
            #expect(try await session.commit([write], transaction: newcomer).errorStatus == "ABORTED")
            #expect(try await session.commit([write], transaction: retry).status == 200, "the retry kept its place")
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
