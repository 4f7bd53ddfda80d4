import EmulatorCore
import Foundation
import Testing

@testable import FirestoreEmulator

/// A document written straight as JSON text reads exactly as its `JSONValue` tree serialized: every value
/// kind, the edge cases of each, key order, escapes, and seeded random documents.
@Suite struct DocumentJSONTests {
    typealias F = WriteFixture

    func expectSameText(_ document: Document, sourceLocation: SourceLocation = #_sourceLocation) {
        let direct = String(decoding: DocumentJSON(document: document, database: F.database).serializedBytes(), as: UTF8.self)
        #expect(direct == document.json(in: F.database).serialized(), sourceLocation: sourceLocation)
    }

    static let everyKind: [String: FirestoreValue] = [
        "null": .null, "yes": .boolean(true), "no": .boolean(false),
        "int": .integer(-42), "max": .integer(.max), "min": .integer(.min),
        "double": .double(2.5), "integral": .double(3), "big": .double(1e300), "tiny": .double(-1e-300),
        "zero": .double(0), "negativeZero": .double(-0.0), "nan": .double(.nan),
        "infinity": .double(.infinity), "negativeInfinity": .double(-.infinity),
        "time": .timestamp(seconds: 1_700_000_000, nanos: 123_456_789), "epoch": .timestamp(seconds: 0, nanos: 0),
        "old": .timestamp(seconds: -62_135_596_800, nanos: 0),
        "text": .string("a \"quoted\" \\ back\nslash\t\u{01}\u{1F} é 😀 </script>"), "empty": .string(""),
        "bytes": .bytes([0, 1, 2, 250, 255]), "noBytes": .bytes([]),
        "reference": .reference("projects/p/databases/(default)/documents/rooms/a"),
        "point": .geoPoint(latitude: 1.5, longitude: -2.25), "origin": .geoPoint(latitude: 0, longitude: 0),
        "latitudeOnly": .geoPoint(latitude: 3, longitude: 0), "longitudeOnly": .geoPoint(latitude: -0.0, longitude: 4),
        "array": .array([.integer(1), .string("x"), .array([]), .map([:])]), "emptyArray": .array([]),
        "map": .map(["z": .integer(1), "a": .map(["nested": .boolean(true)]), "é": .null, "Z": .string("upper")]),
        "emptyMap": .map([:]),
    ]

    @Test func everyValueKindIsWrittenAsTheTreeSerializes() {
        expectSameText(F.document(Self.everyKind))
        for (name, value) in Self.everyKind { expectSameText(F.document([name: value])) }
    }

    @Test func keysAreInByteOrder() {
        expectSameText(F.document(["b": .null, "a": .null, "B": .null, "é": .null, "e": .null, "😀": .null, "`x`": .null, "": .null]))
    }

    @Test func aDocumentWithoutFieldsLeavesThemOut() {
        expectSameText(F.document([:]))
        #expect(!String(decoding: DocumentJSON(document: F.document([:]), database: F.database).serializedBytes(), as: UTF8.self)
            .contains("fields"))
    }

    @Test func aNameThatNeedsEscapesIsEscaped() {
        var document = F.document(["a": .integer(1)])
        document.path = DocumentPath(segments: ["rooms", "a \"b\" \\ é"])
        expectSameText(document)
    }

    @Test func aDatabaseThatNeedsEscapesIsEscapedInTheName() {
        let database = DatabaseName(project: "p\"q", database: "d\\b\u{01}")
        let document = Document(path: DocumentPath(segments: ["c", "\n"]), fields: [:], createTime: F.created, updateTime: F.updated)
        let direct = String(decoding: DocumentJSON(document: document, database: database).serializedBytes(), as: UTF8.self)
        #expect(direct == document.json(in: database).serialized())
    }

    @Test(arguments: [
        Timestamp(seconds: 0, nanos: 0), Timestamp(seconds: 1_700_000_000, nanos: 1_000), Timestamp(seconds: 1, nanos: 120_000_000),
        Timestamp(seconds: 253_402_300_799, nanos: 999_999_999), Timestamp(seconds: -62_135_596_800, nanos: 7),
    ])
    func timesAreWrittenAsTheirText(time: Timestamp) {
        var document = F.document(["t": .timestamp(seconds: time.seconds, nanos: time.nanos)])
        document.createTime = time
        document.updateTime = time
        expectSameText(document)
        var writer = JSONWriter()
        time.write(to: &writer)
        #expect(String(decoding: writer.bytes, as: UTF8.self) == "\"\(time.description)\"")
    }

    @Test func seededRandomDocumentsAreWrittenAsTheTreeSerializes() {
        for document in Self.randomDocuments(seed: 19, count: 300) { expectSameText(document) }
    }

    /// `count` documents of seeded random fields: every kind of value in `everyKind`, nested up to four maps
    /// and arrays deep.
    static func randomDocuments(seed: UInt64, count: Int) -> [Document] {
        var generator = SplitMix64(seed: seed)
        let leaves = Array(everyKind.values.filter { if case .map = $0 { false } else if case .array = $0 { false } else { true } })
        func value(depth: Int) -> FirestoreValue {
            switch Int.random(in: 0..<(depth > 3 ? 1 : 4), using: &generator) {
            case 1: return .array((0..<Int.random(in: 0..<4, using: &generator)).map { _ in value(depth: depth + 1) })
            case 2: return .map(fields(depth: depth + 1))
            default: return leaves.randomElement(using: &generator)!
            }
        }
        func fields(depth: Int) -> [String: FirestoreValue] {
            var fields: [String: FirestoreValue] = [:]
            for _ in 0..<Int.random(in: 0..<6, using: &generator) {
                fields[String(Int.random(in: 0..<1000, using: &generator), radix: 36)] = value(depth: depth)
            }
            return fields
        }
        return (0..<count).map { _ in F.document(fields(depth: 0)) }
    }
}

/// RunQuery's answer written straight as JSON text reads as the `JSONValue` tree its rules describe.
@Suite struct RunQueryJSONTests {
    typealias F = WriteFixture

    /// The answer as a tree: `{document, readTime}` per result (one `{readTime}` when none), the first
    /// with `skippedResults`, the last with `done`, a new transaction alone ahead of them.
    func tree(_ result: QueryResult) -> JSONValue {
        let readTime = JSONValue.string(result.readTime.description)
        var responses: [[String: JSONValue]] = result.documents.map { ["document": $0.json(in: F.database), "readTime": readTime] }
        if responses.isEmpty { responses = [["readTime": readTime]] }
        if result.skipped > 0 { responses[0]["skippedResults"] = .int(Int64(result.skipped)) }
        responses[responses.count - 1]["done"] = true
        var array = responses.map { JSONValue.object($0) }
        if let transaction = result.transaction {
            array.insert(["transaction": .string(Data(transaction).base64EncodedString())], at: 0)
        }
        return .array(array)
    }

    @Test(arguments: [0, 1, 3], [(0, nil), (2, nil), (0, [1, 2, 3]), (2, [1, 2, 3])] as [(Int, [UInt8]?)])
    func anAnswerIsWrittenAsItsTreeSerializes(count: Int, skippedAndTransaction: (Int, [UInt8]?)) {
        let (skipped, transaction) = skippedAndTransaction
        let documents = (0..<count).map { index in
            var document = F.document(["n": .integer(Int64(index)), "s": .string("x\(index)")])
            document.path = DocumentPath(segments: ["rooms", "r\(index)"])
            return document
        }
        let result = QueryResult(documents: documents, readTime: F.commit, skipped: skipped, transaction: transaction)
        let direct = String(decoding: RunQueryJSON(result: result, database: F.database).serializedBytes(), as: UTF8.self)
        #expect(direct == tree(result).serialized())
    }
}

/// Commit's answer written straight as JSON text reads as the tree of its write results.
@Suite struct CommitJSONTests {
    typealias F = WriteFixture

    @Test(arguments: [
        [],
        [WriteResult(updateTime: F.commit)],
        [WriteResult(updateTime: nil)],  // a delete
        [WriteResult(updateTime: F.updated)],  // not the commit time (a verify's, say)
        [
            WriteResult(updateTime: F.commit, transformResults: [.integer(3), .null, .timestamp(seconds: 1, nanos: 2)]),
            WriteResult(updateTime: nil, transformResults: [.double(.nan)]),
            WriteResult(updateTime: F.commit),
        ],
    ] as [[WriteResult]])
    func anAnswerIsWrittenAsItsTreeSerializes(results: [WriteResult]) {
        let outcome = FirestoreStore.CommitOutcome(commitTime: F.commit, results: results, written: PendingDocuments(), changes: [])
        var tree: [String: JSONValue] = ["commitTime": .string(F.commit.description)]
        if !results.isEmpty { tree["writeResults"] = .array(results.map(\.json)) }
        let direct = String(decoding: CommitJSON(outcome: outcome).serializedBytes(), as: UTF8.self)
        #expect(direct == JSONValue.object(tree).serialized())
    }
}
