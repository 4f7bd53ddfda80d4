import FirestoreWire
import SwiftProtobuf

extension Document {
    /// The document as a serialized `google.firestore.v1.Document` in `database`, written byte by byte: the
    /// message SwiftProtobuf writes for `proto(in:)` (its fields in number order, map entries in the
    /// dictionary's order, proto3's defaults left out), without building the message tree first (that and
    /// its generic traversal cost more than the rest of a gRPC get).
    func protoBytes(in database: DatabaseName) -> [UInt8] {
        var writer = ProtoBytesWriter()
        writer.bytes.reserveCapacity(64 + path.segments.reduce(0) { $0 + $1.utf8.count + 1 } + fields.count * 24)
        writer.writeDocument(self, in: database)
        return writer.bytes
    }
}

/// Firestore's messages in protocol buffers' wire form: each message's length is worked out before its
/// fields are written.
extension ProtoBytesWriter {
    /// A `Document`: name (1), fields (2, map entries), create_time (3), update_time (4).
    mutating func writeDocument(_ document: Document, in database: DatabaseName) {
        write(1, string: document.path.name(in: database))
        writeFields(document.fields, tag: 2)
        writeTimestamp(document.createTime, tag: 3)
        writeTimestamp(document.updateTime, tag: 4)
    }

    /// A `google.protobuf.Timestamp` as message field `tag`: seconds (1) and nanos (2), each left out when 0.
    mutating func writeTimestamp(_ time: Timestamp, tag: UInt64) {
        writeTag(tag, .lengthDelimited)
        ProtoVarint.write(UInt64(Self.timestampSize(time.seconds, time.nanos)), into: &bytes)
        writeTimestampFields(time.seconds, time.nanos)
    }

    // MARK: Values

    /// A map's entries as repeated field `tag`, each `{key (1), value (2)}`.
    private mutating func writeFields(_ fields: [String: FirestoreValue], tag: UInt64) {
        for (key, value) in fields {
            let keySize = key.utf8.count
            let valueSize = Self.size(of: value)
            writeTag(tag, .lengthDelimited)
            ProtoVarint.write(UInt64(Self.entrySize(keySize: keySize, valueSize: valueSize)), into: &bytes)
            write(1, string: key)
            writeTag(2, .lengthDelimited)
            ProtoVarint.write(UInt64(valueSize), into: &bytes)
            writeValue(value)
        }
    }

    /// A `Value`'s one field.
    private mutating func writeValue(_ value: FirestoreValue) {
        switch value {
        case .null: write(11, varint: 0)
        case .boolean(let flag): write(1, varint: flag ? 1 : 0)
        case .integer(let number): write(2, varint: UInt64(bitPattern: number))
        case .double(let number):
            writeTag(3, .fixed64)
            writeFixed64(number.bitPattern)
        case .timestamp(let seconds, let nanos):
            writeTag(10, .lengthDelimited)
            ProtoVarint.write(UInt64(Self.timestampSize(seconds, nanos)), into: &bytes)
            writeTimestampFields(seconds, nanos)
        case .string(let text): write(17, string: text)
        case .bytes(let data):
            writeTag(18, .lengthDelimited)
            data.withUnsafeBufferPointer { writeLengthDelimited($0) }
        case .reference(let name): write(5, string: name)
        case .geoPoint(let latitude, let longitude):
            writeTag(8, .lengthDelimited)
            ProtoVarint.write(UInt64(Self.latLngSize(latitude, longitude)), into: &bytes)
            // Left out when their bits are 0 (so -0.0 is written), as SwiftProtobuf does.
            if latitude.bitPattern != 0 {
                writeTag(1, .fixed64)
                writeFixed64(latitude.bitPattern)
            }
            if longitude.bitPattern != 0 {
                writeTag(2, .fixed64)
                writeFixed64(longitude.bitPattern)
            }
        case .array(let values):
            writeTag(9, .lengthDelimited)
            ProtoVarint.write(UInt64(Self.arraySize(values)), into: &bytes)
            for element in values {
                writeTag(1, .lengthDelimited)
                ProtoVarint.write(UInt64(Self.size(of: element)), into: &bytes)
                writeValue(element)
            }
        case .map(let fields):
            writeTag(6, .lengthDelimited)
            ProtoVarint.write(UInt64(Self.fieldsSize(fields)), into: &bytes)
            writeFields(fields, tag: 1)
        }
    }

    // MARK: Sizes

    /// The bytes of a `Value` message's one field.
    private static func size(of value: FirestoreValue) -> Int {
        switch value {
        case .null, .boolean: 2
        case .integer(let number): 1 + ProtoVarint.size(UInt64(bitPattern: number))
        case .double: 9
        case .timestamp(let seconds, let nanos): nested(1, timestampSize(seconds, nanos))
        case .string(let text): nested(2, text.utf8.count)
        case .bytes(let data): nested(2, data.count)
        case .reference(let name): nested(1, name.utf8.count)
        case .geoPoint(let latitude, let longitude): nested(1, latLngSize(latitude, longitude))
        case .array(let values): nested(1, arraySize(values))
        case .map(let fields): nested(1, fieldsSize(fields))
        }
    }

    /// A length-delimited field's bytes: a tag of `tagSize` bytes, the length, and `size` bytes.
    private static func nested(_ tagSize: Int, _ size: Int) -> Int {
        tagSize + ProtoVarint.size(UInt64(size)) + size
    }

    /// The bytes of a `Timestamp` written as a message field with a one-byte tag.
    static func timestampFieldSize(_ time: Timestamp) -> Int {
        nested(1, timestampSize(time.seconds, time.nanos))
    }

    /// The bytes of a `Timestamp`'s fields: seconds (1) and nanos (2), each left out when 0.
    private static func timestampSize(_ seconds: Int64, _ nanos: Int32) -> Int {
        (seconds == 0 ? 0 : 1 + ProtoVarint.size(UInt64(bitPattern: seconds)))
            + (nanos == 0 ? 0 : 1 + ProtoVarint.size(UInt64(bitPattern: Int64(nanos))))
    }

    /// The bytes of a `LatLng`'s fields, each left out when its bits are 0.
    private static func latLngSize(_ latitude: Double, _ longitude: Double) -> Int {
        (latitude.bitPattern != 0 ? 9 : 0) + (longitude.bitPattern != 0 ? 9 : 0)
    }

    /// The bytes of an `ArrayValue`'s values (1).
    private static func arraySize(_ values: [FirestoreValue]) -> Int {
        values.reduce(0) { $0 + nested(1, size(of: $1)) }
    }

    /// The bytes of a map's entries as field 1 (`MapValue.fields`) or 2 (`Document.fields`): one-byte tags.
    private static func fieldsSize(_ fields: [String: FirestoreValue]) -> Int {
        fields.reduce(0) { total, entry in total + nested(1, entrySize(keySize: entry.key.utf8.count, valueSize: size(of: entry.value))) }
    }

    /// The bytes of a map entry: its key (1) and its value (2).
    private static func entrySize(keySize: Int, valueSize: Int) -> Int {
        nested(1, keySize) + nested(1, valueSize)
    }

    /// Writes a `Timestamp`'s fields (its length already written).
    private mutating func writeTimestampFields(_ seconds: Int64, _ nanos: Int32) {
        if seconds != 0 { write(1, varint: UInt64(bitPattern: seconds)) }
        if nanos != 0 { write(2, varint: UInt64(bitPattern: Int64(nanos))) }
    }
}
