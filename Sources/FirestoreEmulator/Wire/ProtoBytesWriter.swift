/// A protocol buffers message written field by field into `bytes`: gRPC's answers (see
/// `DocumentProtoBytes.swift`) and the admin messages a console link carries.
struct ProtoBytesWriter {
    /// What is written so far.
    var bytes: [UInt8] = []

    /// Writes the key of field number `field` of wire type `type`.
    mutating func writeTag(_ field: UInt64, _ type: WireType) {
        ProtoVarint.write(field << 3 | UInt64(type.rawValue), into: &bytes)
    }

    /// Writes `content` with its length before it (after a tag: a string, bytes or a message).
    mutating func writeLengthDelimited(_ content: UnsafeBufferPointer<UInt8>) {
        ProtoVarint.write(UInt64(content.count), into: &bytes)
        bytes.append(contentsOf: content)
    }

    /// Writes eight bytes, little-endian (a double's bits).
    mutating func writeFixed64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    /// Writes varint field `field`.
    mutating func write(_ field: UInt64, varint value: UInt64) {
        writeTag(field, .varint)
        ProtoVarint.write(value, into: &bytes)
    }

    /// Writes string field `field`.
    mutating func write(_ field: UInt64, string text: String) {
        writeTag(field, .lengthDelimited)
        var text = text
        text.withUTF8 { writeLengthDelimited($0) }
    }

    /// Writes message field `field`, the message already written by `message`.
    mutating func write(_ field: UInt64, message: ProtoBytesWriter) {
        writeTag(field, .lengthDelimited)
        message.bytes.withUnsafeBufferPointer { writeLengthDelimited($0) }
    }
}
