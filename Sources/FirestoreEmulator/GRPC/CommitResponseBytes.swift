import FirestoreWire
import SwiftProtobuf

extension FirestoreStore.CommitOutcome {
    /// The outcome as a serialized `CommitResponse`: written byte by byte when no write has transform results
    /// (SwiftProtobuf's generic traversal cost ~2,500 instructions a write result), by SwiftProtobuf
    /// otherwise; the same bytes either way (fields in number order, defaults left out).
    func responseBytes() throws -> [UInt8] {
        guard results.allSatisfy({ $0.transformResults.isEmpty }) else { return try proto.serializedBytes() }
        var writer = ProtoBytesWriter()
        writer.bytes.reserveCapacity(16 * (results.count + 1))
        for result in results {
            // write_results (1), each a WriteResult whose update_time (1) is its only field here.
            writer.writeTag(1, .lengthDelimited)
            guard let updateTime = result.updateTime else {
                writer.bytes.append(0)
                continue
            }
            ProtoVarint.write(UInt64(ProtoBytesWriter.timestampFieldSize(updateTime)), into: &writer.bytes)
            writer.writeTimestamp(updateTime, tag: 1)
        }
        writer.writeTimestamp(commitTime, tag: 2)  // commit_time (2)
        return writer.bytes
    }
}
