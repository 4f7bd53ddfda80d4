import NIOCore

/// Protocol buffers' base-128 varints, for the messages written byte by byte (listen changes, commit
/// responses).
enum ProtoVarint {
    /// How many bytes `value` takes.
    static func size(_ value: UInt64) -> Int {
        value == 0 ? 1 : (64 - value.leadingZeroBitCount + 6) / 7
    }

    /// Writes `value` to `buffer`.
    static func write(_ value: UInt64, into buffer: inout ByteBuffer) {
        var value = value
        while value >= 0x80 {
            buffer.writeInteger(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        buffer.writeInteger(UInt8(value))
    }

    /// Appends `value` to `bytes`.
    static func write(_ value: UInt64, into bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }
}
