import EmulatorCore
import FirestoreWire
import SwiftProtobuf
import Testing

@testable import FirestoreEmulator

/// A commit's response written byte by byte is the message SwiftProtobuf serializes: results with and
/// without update times, times with zero, negative and large parts, and results with transform values
/// (which SwiftProtobuf writes).
@Suite struct CommitResponseBytesTests {
    static func time(_ random: inout SplitMix64) -> Timestamp {
        let seconds: [Int64] = [0, 1, 127, 128, 1_700_000_000, -62_135_596_800, 253_402_300_799, -1]
        let nanos: [Int32] = [0, 1, 127, 128, 999_999_999, 1_000]
        return Timestamp(seconds: seconds.randomElement(using: &random)!, nanos: nanos.randomElement(using: &random)!)
    }

    @Test(arguments: 1...200) func theBytesAreSwiftProtobufs(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let results = (0..<Int.random(in: 0..<13, using: &random)).map { _ in
            WriteResult(
                updateTime: Bool.random(using: &random) ? Self.time(&random) : nil,
                transformResults: seed.isMultiple(of: 7) && Bool.random(using: &random) ? [.integer(3), .null] : [])
        }
        let outcome = FirestoreStore.CommitOutcome(
            commitTime: Self.time(&random), results: results, written: PendingDocuments(), changes: [])
        let expected: [UInt8] = try outcome.proto.serializedBytes()
        #expect(try outcome.responseBytes() == expected)
    }
}
