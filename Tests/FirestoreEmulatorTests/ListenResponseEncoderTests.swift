import FirestoreWire
import NIOCore
import SwiftProtobuf
import Testing

@testable import FirestoreEmulator

/// The listen response encoder writes, for every event, the bytes SwiftProtobuf writes for the same message,
/// and reuses what it encoded once.
@Suite struct ListenResponseEncoderTests {
    let database = DatabaseName(project: "p", database: "(default)")

    func document(_ path: String, _ n: Int64, at micros: Int64) throws -> Document {
        Document(
            path: DocumentPath(segments: path.split(separator: "/").map(String.init)), fields: ["n": .integer(n), "s": .string(String(repeating: "é", count: 70))],
            createTime: Timestamp(microseconds: 1), updateTime: Timestamp(microseconds: micros))
    }

    /// The messages in `buffer`, each after its gRPC prefix.
    func messages(_ buffer: ByteBuffer) -> [[UInt8]] {
        var buffer = buffer
        var messages: [[UInt8]] = []
        while let flag = buffer.readInteger(as: UInt8.self), let length = buffer.readInteger(as: UInt32.self) {
            #expect(flag == 0)
            messages.append(buffer.readBytes(length: Int(length)) ?? [])
        }
        return messages
    }

    @Test func everyEventIsTheMessageSwiftProtobufWrites() throws {
        let time = Timestamp(microseconds: 1_700_000_000_123_456)
        let events: [ListenEvent] = [
            .documentChange(try document("a/b", 1, at: 5), targetIDs: [2], removedTargetIDs: []),
            .documentChange(try document("a/c", 2, at: 6), targetIDs: [2, 300, -1, Int32.max], removedTargetIDs: [4, Int32.min]),
            .documentChange(try document("a/d", 3, at: 7), targetIDs: [], removedTargetIDs: [8]),
            .documentChange(try document("a/e", 4, at: 8), targetIDs: [], removedTargetIDs: []),
            .targetChange(.noChange, targetIDs: [], resumeTime: time, readTime: time),
            .targetChange(.current, targetIDs: [2], resumeTime: time),
            .targetChange(.remove, targetIDs: [2], cause: .permissionDenied),
            .documentDelete(DocumentPath(segments: ["a", "b"]), removedTargetIDs: [2], readTime: time),
            .documentRemove(DocumentPath(segments: ["a", "c"]), removedTargetIDs: [2], readTime: time),
            .existenceFilter(targetID: 2, count: 7),
        ]
        var encoder = ListenResponseEncoder(database: database)
        var buffer = ByteBuffer()
        encoder.frame(events, into: &buffer)
        let expected = try events.map { try FirestoreGRPCService.message(for: $0, in: database).serializedBytes() as [UInt8] }
        #expect(messages(buffer) == expected)
    }

    @Test func aDocumentAndASnapshotEncodedOnceServeEveryCall() throws {
        let time = Timestamp(microseconds: 42)
        let change = try document("a/b", 1, at: 5)
        var encoder = ListenResponseEncoder(database: database)
        var buffers: [ByteBuffer] = []
        for target in [Int32(1), 2] {
            var buffer = ByteBuffer()
            encoder.frame(
                [
                    .documentChange(change, targetIDs: [target], removedTargetIDs: []),
                    .targetChange(.noChange, targetIDs: [], resumeTime: time, readTime: time),
                ], into: &buffer)
            buffers.append(buffer)
        }
        let decoded = try buffers.map { try messages($0).map { try Google_Firestore_V1_ListenResponse(serializedBytes: $0) } }
        #expect(decoded[0][0].documentChange.targetIds == [1] && decoded[1][0].documentChange.targetIds == [2])
        #expect(decoded[0][0].documentChange.document == decoded[1][0].documentChange.document)
        #expect(decoded[0][1] == decoded[1][1])
    }
}
