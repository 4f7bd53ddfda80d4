import EmulatorCore
import FirestoreWire
import SwiftProtobuf
import Testing

@testable import FirestoreEmulator

/// A document written byte by byte is the message SwiftProtobuf writes: the same bytes when map order leaves
/// no choice, the same message (both written in deterministic order) otherwise; every kind of value, its
/// edge cases, and seeded random documents.
@Suite struct DocumentProtoBytesTests {
    typealias F = WriteFixture

    func expectSameMessage(_ document: Document, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let bytes = document.protoBytes(in: F.database)
        let expected = document.proto(in: F.database)
        var deterministic = BinaryEncodingOptions()
        deterministic.useDeterministicOrdering = true
        let decoded = try Google_Firestore_V1_Document(serializedBytes: bytes)
        #expect(
            try decoded.serializedBytes(options: deterministic) as [UInt8] == expected.serializedBytes(options: deterministic),
            sourceLocation: sourceLocation)
        if document.fields.count <= 1, !document.fields.values.contains(where: { if case .map = $0 { true } else { false } }) {
            #expect(bytes == (try expected.serializedBytes() as [UInt8]), sourceLocation: sourceLocation)
        }
    }

    @Test func everyKindOfValueIsWrittenAsSwiftProtobufWritesIt() throws {
        for (name, value) in DocumentJSONTests.everyKind { try expectSameMessage(F.document([name: value])) }
        try expectSameMessage(F.document(DocumentJSONTests.everyKind))
        try expectSameMessage(F.document([:]))
    }

    @Test func zeroTimesAndLongNamesAreWrittenAsSwiftProtobufWritesThem() throws {
        var document = F.document(["a": .string(String(repeating: "x", count: 300))])
        document.createTime = Timestamp(seconds: 0, nanos: 0)
        document.updateTime = Timestamp(seconds: -1, nanos: 999_999_999)
        document.path = DocumentPath(segments: ["rooms", String(repeating: "é", count: 100)])
        try expectSameMessage(document)
    }

    @Test func seededRandomDocumentsAreWrittenAsSwiftProtobufWritesThem() throws {
        for document in DocumentJSONTests.randomDocuments(seed: 23, count: 300) { try expectSameMessage(document) }
    }
}

/// RunQuery's responses written byte by byte are those SwiftProtobuf writes for the same result: with
/// documents, none, skipped results and a new transaction.
@Suite struct RunQueryResponseBytesTests {
    typealias F = WriteFixture

    @Test(arguments: [0, 1, 3]) func theBytesAreSwiftProtobufs(count: Int) throws {
        let documents = DocumentJSONTests.randomDocuments(seed: UInt64(count), count: count).map { document in
            // One field at most, so that map order leaves no choice of bytes.
            var document = document
            document.fields = document.fields.first.map { [$0.key: $0.value] } ?? [:]
            return document
        }
        for skipped in [0, 2, 1 << 40] {
            for transaction in [nil, [UInt8]([1, 2, 250])] {
                let result = QueryResult(
                    documents: documents, readTime: Timestamp(seconds: 1_700_000_000, nanos: 5_000), skipped: skipped,
                    transaction: transaction)
                let expected = try FirestoreGRPCService.responses(result, in: F.database).map { try $0.serializedBytes() as [UInt8] }
                #expect(FirestoreGRPCService.responseBytes(result, in: F.database) == expected, "\(skipped) \(String(describing: transaction))")
            }
        }
    }
}
