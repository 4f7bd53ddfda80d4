/// The bytes a document is kept as in a data folder (`--data-dir`): compact, and read back at the speed a
/// restart with a million documents needs. The path is the entry's key, so it is not in the bytes.
///
/// Layout: a format byte (1), create and update times, then the fields as a map. A time is a zigzag varint
/// of seconds and a varint of nanoseconds; a map is a varint count and that many key (string) and value
/// pairs; a string or bytes is a varint length and the bytes; a value is a tag byte and its payload:
/// 0 null, 1 false, 2 true, 3 integer (zigzag varint), 4 double (8 bytes, little-endian bits), 5 timestamp,
/// 6 string, 7 bytes, 8 reference (string), 9 geopoint (two doubles), 10 array (count, values), 11 map.
enum DocumentCodec {
    /// Something in the bytes does not make a document.
    struct Corrupt: Error, CustomStringConvertible {
        var description: String { "a stored document is corrupt" }
    }

    private static let format: UInt8 = 1

    /// The bytes of `document`'s times and fields.
    static func encode(_ document: Document) -> [UInt8] {
        var writer = Writer()
        writer.bytes.reserveCapacity(64)
        writer.bytes.append(format)
        writer.time(document.createTime)
        writer.time(document.updateTime)
        writer.map(document.fields)
        return writer.bytes
    }

    /// The document at `path` that `bytes` hold.
    static func decode(_ bytes: UnsafeRawBufferPointer, path: DocumentPath) throws(Corrupt) -> Document {
        var reader = Reader(bytes: bytes)
        guard try reader.byte() == format else { throw Corrupt() }
        let createTime = try reader.time()
        let updateTime = try reader.time()
        let fields = try reader.map(depth: 0)
        guard reader.offset == bytes.count else { throw Corrupt() }
        return Document(path: path, fields: fields, createTime: createTime, updateTime: updateTime)
    }

    private struct Writer {
        var bytes: [UInt8] = []

        mutating func varint(_ value: UInt64) {
            ProtoVarint.write(value, into: &bytes)
        }

        mutating func signed(_ value: Int64) { varint(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }

        mutating func double(_ value: Double) {
            withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        }

        mutating func string(_ value: String) {
            var value = value
            value.withUTF8 { utf8 in
                varint(UInt64(utf8.count))
                bytes.append(contentsOf: utf8)
            }
        }

        mutating func time(_ time: Timestamp) {
            signed(time.seconds)
            varint(UInt64(UInt32(bitPattern: time.nanos)))
        }

        mutating func map(_ fields: [String: FirestoreValue]) {
            varint(UInt64(fields.count))
            for (key, value) in fields {
                string(key)
                self.value(value)
            }
        }

        mutating func value(_ value: FirestoreValue) {
            switch value {
            case .null: bytes.append(0)
            case .boolean(let flag): bytes.append(flag ? 2 : 1)
            case .integer(let integer):
                bytes.append(3)
                signed(integer)
            case .double(let double):
                bytes.append(4)
                self.double(double)
            case .timestamp(let seconds, let nanos):
                bytes.append(5)
                time(Timestamp(seconds: seconds, nanos: nanos))
            case .string(let text):
                bytes.append(6)
                string(text)
            case .bytes(let data):
                bytes.append(7)
                varint(UInt64(data.count))
                bytes.append(contentsOf: data)
            case .reference(let name):
                bytes.append(8)
                string(name)
            case .geoPoint(let latitude, let longitude):
                bytes.append(9)
                double(latitude)
                double(longitude)
            case .array(let values):
                bytes.append(10)
                varint(UInt64(values.count))
                for element in values { self.value(element) }
            case .map(let fields):
                bytes.append(11)
                map(fields)
            }
        }
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        /// Deeper than any document production accepts (maps and arrays nest at most 20 levels).
        static let maximumDepth = 64

        mutating func byte() throws(Corrupt) -> UInt8 {
            guard offset < bytes.count else { throw Corrupt() }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func varint() throws(Corrupt) -> UInt64 {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let byte = try self.byte()
                guard shift < 64 else { throw Corrupt() }
                result |= UInt64(byte & 0x7f) << shift
                if byte < 0x80 { return result }
                shift += 7
            }
        }

        mutating func signed() throws(Corrupt) -> Int64 {
            let raw = try varint()
            return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
        }

        mutating func count() throws(Corrupt) -> Int {
            let count = try varint()
            guard count <= UInt64(bytes.count - offset) else { throw Corrupt() }
            return Int(count)
        }

        mutating func double() throws(Corrupt) -> Double {
            guard bytes.count - offset >= 8 else { throw Corrupt() }
            var bits: UInt64 = 0
            for index in 0..<8 { bits |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
            offset += 8
            return Double(bitPattern: bits)
        }

        mutating func raw() throws(Corrupt) -> UnsafeRawBufferPointer {
            let count = try self.count()
            defer { offset += count }
            return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
        }

        mutating func string() throws(Corrupt) -> String {
            // Written from Swift strings, so valid UTF-8; damaged bytes are repaired, never trusted.
            String(decoding: try raw(), as: UTF8.self)
        }

        mutating func time() throws(Corrupt) -> Timestamp {
            let seconds = try signed()
            let nanos = try varint()
            // Times outside Firestore's range would overflow the store's arithmetic.
            guard nanos < 1_000_000_000, Timestamp.validSeconds.contains(seconds) else { throw Corrupt() }
            return Timestamp(seconds: seconds, nanos: Int32(nanos))
        }

        mutating func map(depth: Int) throws(Corrupt) -> [String: FirestoreValue] {
            let count = try self.count()
            var fields: [String: FirestoreValue] = [:]
            fields.reserveCapacity(count)
            for _ in 0..<count {
                let key = try string()
                fields[key] = try value(depth: depth)
            }
            return fields
        }

        mutating func value(depth: Int) throws(Corrupt) -> FirestoreValue {
            guard depth < Self.maximumDepth else { throw Corrupt() }
            switch try byte() {
            case 0: return .null
            case 1: return .boolean(false)
            case 2: return .boolean(true)
            case 3: return .integer(try signed())
            case 4: return .double(try double())
            case 5:
                let time = try self.time()
                return .timestamp(seconds: time.seconds, nanos: time.nanos)
            case 6: return .string(try string())
            case 7: return .bytes(Array(try raw()))
            case 8: return .reference(try string())
            case 9:
                let latitude = try double()
                return .geoPoint(latitude: latitude, longitude: try double())
            case 10:
                let count = try self.count()
                var values: [FirestoreValue] = []
                values.reserveCapacity(count)
                for _ in 0..<count { values.append(try value(depth: depth + 1)) }
                return .array(values)
            case 11: return .map(try map(depth: depth + 1))
            default: throw Corrupt()
            }
        }
    }
}
