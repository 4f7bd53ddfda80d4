import NIOCore

/// Protocol buffers' wire types: how a field's value is laid out after its tag.
enum WireType: UInt8 {
    /// Integers, booleans and enums.
    case varint = 0
    /// Doubles and 64-bit fixed integers.
    case fixed64 = 1
    /// Strings, bytes and messages.
    case lengthDelimited = 2
    /// Groups (deprecated; nothing Firestore sends).
    case startGroup = 3, endGroup = 4
    /// Floats and 32-bit fixed integers.
    case fixed32 = 5
}

/// Protocol buffers' base-128 varints, for every message written byte by byte (gRPC answers, listen
/// changes, console links' indexes) and the data folder's own records.
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
