import FirestoreWire
import SwiftProtobuf

extension FirestoreStore.CommitOutcome {
    /// The outcome as a serialized `CommitResponse`: written byte by byte when no write has transform results
    /// (SwiftProtobuf's generic traversal cost ~2,500 instructions a write result), by SwiftProtobuf
    /// otherwise; the same bytes either way (fields in number order, defaults left out).
    func responseBytes() throws -> [UInt8] {
        guard results.allSatisfy({ $0.transformResults.isEmpty }) else { return try proto.serializedBytes() }
        let commitTime = Self.timestampSize(self.commitTime)
        var size = 1 + ProtoVarint.size(UInt64(commitTime)) + commitTime
        for result in results {
            let body = result.updateTime.map { 1 + ProtoVarint.size(UInt64(Self.timestampSize($0))) + Self.timestampSize($0) } ?? 0
            size += 1 + ProtoVarint.size(UInt64(body)) + body
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        for result in results {
            // write_results (1), each a WriteResult whose update_time (1) is its only field here.
            bytes.append(1 << 3 | 2)
            guard let updateTime = result.updateTime else {
                bytes.append(0)
                continue
            }
            let time = Self.timestampSize(updateTime)
            ProtoVarint.write(UInt64(1 + ProtoVarint.size(UInt64(time)) + time), into: &bytes)
            Self.writeTimestamp(updateTime, field: 1, size: time, into: &bytes)
        }
        // commit_time (2).
        Self.writeTimestamp(self.commitTime, field: 2, size: commitTime, into: &bytes)
        return bytes
    }

    /// The bytes of a `google.protobuf.Timestamp`'s fields: seconds (1) and nanos (2), each left out when 0.
    private static func timestampSize(_ time: Timestamp) -> Int {
        (time.seconds == 0 ? 0 : 1 + ProtoVarint.size(UInt64(bitPattern: time.seconds)))
            + (time.nanos == 0 ? 0 : 1 + ProtoVarint.size(UInt64(bitPattern: Int64(time.nanos))))
    }

    /// Writes `time` as message field `field`, its fields taking `size` bytes.
    private static func writeTimestamp(_ time: Timestamp, field: UInt8, size: Int, into bytes: inout [UInt8]) {
        bytes.append(field << 3 | 2)
        ProtoVarint.write(UInt64(size), into: &bytes)
        if time.seconds != 0 {
            bytes.append(1 << 3)
            ProtoVarint.write(UInt64(bitPattern: time.seconds), into: &bytes)
        }
        if time.nanos != 0 {
            bytes.append(2 << 3)
            ProtoVarint.write(UInt64(bitPattern: Int64(time.nanos)), into: &bytes)
        }
    }
}
