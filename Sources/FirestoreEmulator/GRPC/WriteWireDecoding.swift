import EmulatorCore
import FirestoreWire
import NIOCore
import SwiftProtobuf

/// The writes of a `CommitRequest` or `WriteRequest` read straight from their protobuf bytes into the
/// service's types, the documents' values without a `google.firestore.v1.Value` message in between.
///
/// SwiftProtobuf decodes through generic code that is not specialized for these messages: a commit of ten
/// small documents cost ~200k instructions to decode and ~140k more to convert, more than the commit
/// itself. This reader takes the common shape (an `update` with its fields, and a mask, transforms or a
/// precondition, which it hands to SwiftProtobuf) and gives up, returning `nil`, on anything else: an
/// unusual shape, bytes that do not decode, or a request the conversion refuses. The caller then decodes
/// with SwiftProtobuf and converts as before, which gives the same result or the same error, so this
/// reader never has to reproduce an error. (`Fuzz/HearthFuzz`'s `grpc-writes` target checks that the two
/// agree on every input.)
enum WriteWireDecoding {
    /// A commit's request, or `nil` to decode it the general way.
    static func commitRequest(_ bytes: ByteBuffer) -> CommitRequest? {
        guard let read = WireRequest(bytes, layout: .commit), let database = try? DatabaseName(validating: read.database),
            let writes = try? convert(read.writes, database: database)
        else { return nil }
        return CommitRequest(database: database, writes: writes, transaction: read.bytes.isEmpty ? nil : read.bytes)
    }

    /// The writes of a `WriteRequest`'s conversion, `nil` to decode it the general way: the same request
    /// `FirestoreGRPCService.request(_:)` makes of the decoded message.
    static func writeRequest(_ bytes: ByteBuffer) -> WriteStreamRequest? {
        guard let read = WireRequest(bytes, layout: .write) else { return nil }
        // The writes are converted once the stream knows its database, as the general way does; one that the
        // conversion refuses there is converted again the general way, for its error.
        let decoded = read.writes
        return WriteStreamRequest(database: read.database, streamID: read.streamID, token: read.bytes, hasWrites: !decoded.isEmpty) {
            (database) throws(FirestoreError) in
            do throws(FirestoreError) {
                return try convert(decoded, database: database)
            } catch {
                guard let message = try? Google_Firestore_V1_WriteRequest(serializedBytes: Array(bytes.readableBytesView)) else {
                    throw error
                }
                return try Write.writes(proto: message.writes, database: database)
            }
        }
    }

    /// Whether a commit's bytes read here give what SwiftProtobuf's decoding and the conversion give (or this
    /// reader gives up on them): the check `Fuzz/HearthFuzz` runs on every input, and the tests on theirs.
    static func agreesWithSwiftProtobuf(commit bytes: ByteBuffer) -> Bool {
        guard let read = commitRequest(bytes) else { return true }
        guard let message = try? Google_Firestore_V1_CommitRequest(serializedBytes: Array(bytes.readableBytesView)),
            let general = try? FirestoreGRPCService.commitRequest(message)
        else { return false }
        return read.database == general.database && read.transaction == general.transaction
            && read.writes.map(\.canonical) == general.writes.map(\.canonical)
    }

    /// The same check for a `WriteRequest`'s bytes, its writes converted in its own database.
    static func agreesWithSwiftProtobuf(writeRequest bytes: ByteBuffer) -> Bool {
        guard let read = writeRequest(bytes) else { return true }
        guard let message = try? Google_Firestore_V1_WriteRequest(serializedBytes: Array(bytes.readableBytesView)) else {
            return false
        }
        let general = FirestoreGRPCService.request(message)
        guard read.database == general.database, read.streamID == general.streamID, read.token == general.token,
            read.hasWrites == general.hasWrites
        else { return false }
        guard let database = try? DatabaseName(validating: read.database) else { return true }
        switch (Result { () throws(FirestoreError) in try read.writes(database) }, Result { () throws(FirestoreError) in try general.writes(database) }) {
        case (.success(let ours), .success(let theirs)): return ours.map(\.canonical) == theirs.map(\.canonical)
        case (.failure(let ours), .failure(let theirs)): return ours.message == theirs.message && ours.grpcCode == theirs.grpcCode
        default: return false
        }
    }

    /// Converts the writes as `Write.writes(proto:database:)` does.
    private static func convert(_ writes: [WireWrite], database: DatabaseName) throws(FirestoreError) -> [Write] {
        try FirestoreService.checkWriteCount(writes.count)
        var converted: [Write] = []
        converted.reserveCapacity(writes.count)
        for (index, write) in writes.enumerated() {
            converted.append(try write.converted(database: database, index: index))
        }
        return converted
    }
}

extension Write {
    /// The write spelled out exactly (map keys sorted, doubles by their bits), for the checks that two readers
    /// of writes agree (`agreesWithSwiftProtobuf`, `RESTWriteReading.agreesWithTreePath`).
    var canonical: String {
        let kind: String
        switch operation {
        case .update(let fields): kind = "update " + FirestoreValue.map(fields).canonical
        case .delete: kind = "delete"
        case .verify: kind = "verify"
        case .transform: kind = "transform"
        }
        let mask = updateMask.map { "\($0)" } ?? "-"
        let changes = transforms.map { "\($0.field)=\($0.kind.canonical)" }
        return "\(path) \(kind) mask \(mask) transforms \(changes) precondition \(String(describing: precondition))"
    }
}

extension FieldTransform.Kind {
    var canonical: String {
        switch self {
        case .serverTimestamp: "serverTimestamp"
        case .increment(let value): "increment " + value.canonical
        case .maximum(let value): "maximum " + value.canonical
        case .minimum(let value): "minimum " + value.canonical
        case .appendMissingElements(let values): "append " + FirestoreValue.array(values).canonical
        case .removeAllFromArray(let values): "remove " + FirestoreValue.array(values).canonical
        }
    }
}

extension FirestoreValue {
    var canonical: String {
        switch self {
        case .null: "null"
        case .boolean(let flag): "bool \(flag)"
        case .integer(let number): "int \(number)"
        case .double(let number): "double \(number.bitPattern)"
        case .timestamp(let seconds, let nanos): "time \(seconds).\(nanos)"
        case .string(let text): "string \(text.debugDescription)"
        case .bytes(let data): "bytes \(data)"
        case .reference(let name): "reference \(name.debugDescription)"
        case .geoPoint(let latitude, let longitude): "geo \(latitude.bitPattern) \(longitude.bitPattern)"
        case .array(let values): "[" + values.map(\.canonical).joined(separator: ", ") + "]"
        case .map(let fields):
            "{" + fields.keys.sorted().map { "\($0.debugDescription): \(fields[$0]!.canonical)" }.joined(separator: ", ") + "}"
        }
    }
}

/// A `CommitRequest` or `WriteRequest`, read: its database, writes, stream id and bytes (the transaction, or
/// the stream token).
private struct WireRequest {
    /// Where a request's fields are.
    struct Layout {
        var writes: Int
        var bytes: Int
        var streamID: Int?
        /// Every field the message has; those not read above are left to SwiftProtobuf.
        var known: ClosedRange<Int>

        static let commit = Layout(writes: 2, bytes: 3, streamID: nil, known: 1...4)
        static let write = Layout(writes: 3, bytes: 4, streamID: 2, known: 1...6)
    }

    var database = ""
    var streamID = ""
    var writes: [WireWrite] = []
    var bytes: [UInt8] = []

    init?(_ buffer: ByteBuffer, layout: Layout) {
        let read = buffer.withUnsafeReadableBytes { raw -> WireRequest? in
            var reader = WireReader(raw)
            var request = WireRequest()
            while let (field, type) = reader.nextField() {
                switch (field, type) {
                case (1, .lengthDelimited):
                    guard let text = reader.string() else { return nil }
                    request.database = text
                case (layout.writes, .lengthDelimited):
                    guard let write = reader.message(WireWrite.init) else { return nil }
                    request.writes.append(write)
                case (layout.bytes, .lengthDelimited):
                    guard let data = reader.lengthDelimited() else { return nil }
                    request.bytes = Array(data)
                case (layout.streamID ?? 0, .lengthDelimited):
                    guard let text = reader.string() else { return nil }
                    request.streamID = text
                case _ where layout.known.contains(field): return nil
                default: guard reader.skip(type) else { return nil }
                }
            }
            return reader.isValid ? request : nil
        }
        guard let read else { return nil }
        self = read
    }

    private init() {}
}

/// One `Write`, read: an update's document name and fields, or the write's bytes for SwiftProtobuf.
private struct WireWrite {
    /// An update's document name and fields, when the write is one.
    var update: (name: String, fields: [String: FirestoreValue])?
    /// The write's other fields (its whole bytes without an update), as SwiftProtobuf decoded them.
    var rest: Google_Firestore_V1_Write

    init?(_ reader: inout WireReader) {
        var other: [UInt8] = []
        while let (field, type) = reader.nextField() {
            switch (field, type) {
            case (1, .lengthDelimited):
                guard update == nil, let document = reader.message(WireWrite.document) else { return nil }
                update = document
            case (2, _), (5, _), (6, _):
                return nil  // delete, verify, transform: the other operations, left to SwiftProtobuf
            default:
                guard let bytes = reader.fieldBytes(field, type) else { return nil }
                other.append(contentsOf: bytes)
            }
        }
        // Most writes are nothing but their update: no message to decode.
        guard reader.isValid, update != nil,
            let rest = other.isEmpty ? Google_Firestore_V1_Write() : try? Google_Firestore_V1_Write(serializedBytes: other)
        else { return nil }
        self.rest = rest
    }

    /// A `Document` with a name and fields only (create and update times are left to SwiftProtobuf).
    private static func document(_ reader: inout WireReader) -> (name: String, fields: [String: FirestoreValue])? {
        var name = ""
        var entries: [(String, FirestoreValue)] = []
        while let (field, type) = reader.nextField() {
            switch (field, type) {
            case (1, .lengthDelimited): guard let text = reader.string() else { return nil }; name = text
            case (2, .lengthDelimited):
                guard let entry = reader.message({ WireValue.mapEntry(&$0, depth: 0) }) else { return nil }
                entries.append(entry)
            case (1, _), (2, _), (3, _), (4, _): return nil  // create and update times too
            default: guard reader.skip(type) else { return nil }
            }
        }
        return reader.isValid ? (name, WireValue.fields(entries)) : nil
    }

    /// The write as `Write(proto:database:field:)` converts it, the request's write number `index`.
    func converted(database: DatabaseName, index: Int) throws(FirestoreError) -> Write {
        guard let update else { preconditionFailure("a WireWrite is an update") }
        var write = Write(path: try Write.documentPath(update.name, in: database), operation: .update(fields: update.fields))
        try write.readOptions(of: rest, field: "writes[\(index)]")
        return write
    }
}

/// `google.firestore.v1.Value`s read from their bytes as the service's values.
private enum WireValue {
    /// Deeper nesting is left to SwiftProtobuf: its limit counts messages (100), three per level of maps.
    /// (Production nests at most 20 levels.)
    static let depthLimit = 20

    /// A `Value`, or `nil` for anything but exactly one set field whose value converts.
    static func value(_ reader: inout WireReader, depth: Int) -> FirestoreValue? {
        guard depth < depthLimit else { return nil }
        var value: FirestoreValue?
        while let (field, type) = reader.nextField() {
            let read: FirestoreValue?
            switch (field, type) {
            case (11, .varint): read = reader.varint().map { _ in .null }
            case (1, .varint): read = reader.varint().map { .boolean($0 != 0) }
            case (2, .varint): read = reader.varint().map { .integer(Int64(bitPattern: $0)) }
            case (3, .fixed64): read = reader.fixed64().map { .double(Double(bitPattern: $0)) }
            case (10, .lengthDelimited): read = reader.message(timestamp)
            case (17, .lengthDelimited): read = reader.string().map { .string($0) }
            case (18, .lengthDelimited): read = reader.lengthDelimited().map { .bytes(Array($0)) }
            case (5, .lengthDelimited): read = reader.string().map { .reference($0) }
            case (8, .lengthDelimited): read = reader.message(geoPoint)
            case (9, .lengthDelimited): read = reader.message { array(&$0, depth: depth + 1) }
            case (6, .lengthDelimited): read = reader.message { map(&$0, depth: depth + 1) }
            case (1, _), (2, _), (3, _), (5, _), (6, _), (8, _), (9, _), (10, _), (11, _), (17, _), (18, _): return nil
            default:
                guard reader.skip(type) else { return nil }
                continue
            }
            // A second field of the oneof would replace (or merge into) the first: left to SwiftProtobuf.
            guard let read, value == nil else { return nil }
            value = read
        }
        return reader.isValid ? value : nil
    }

    /// A `map<string, Value>` entry with its key and value each once.
    static func mapEntry(_ reader: inout WireReader, depth: Int) -> (String, FirestoreValue)? {
        var key: String?
        var value: FirestoreValue?
        while let (field, type) = reader.nextField() {
            switch (field, type) {
            case (1, .lengthDelimited):
                guard key == nil, let text = reader.string() else { return nil }
                key = text
            case (2, .lengthDelimited):
                guard value == nil, let read = reader.message({ Self.value(&$0, depth: depth) }) else { return nil }
                value = read
            case (1, _), (2, _): return nil
            default: guard reader.skip(type) else { return nil }
            }
        }
        guard reader.isValid, let key, let value else { return nil }
        return (key, value)
    }

    /// A `Timestamp` in the range production takes, at microseconds as it is stored.
    private static func timestamp(_ reader: inout WireReader) -> FirestoreValue? {
        guard let (first, second) = pair(&reader, of: .varint) else { return nil }
        let (seconds, nanos) = (Int64(bitPattern: first), Int32(truncatingIfNeeded: second))
        guard Timestamp.validSeconds.contains(seconds), (0..<1_000_000_000).contains(nanos) else { return nil }
        return .timestamp(seconds: seconds, nanos: nanos - nanos % 1000)
    }

    /// A `LatLng`.
    private static func geoPoint(_ reader: inout WireReader) -> FirestoreValue? {
        guard let (latitude, longitude) = pair(&reader, of: .fixed64) else { return nil }
        return .geoPoint(latitude: Double(bitPattern: latitude), longitude: Double(bitPattern: longitude))
    }

    /// A message of two scalar fields (1 and 2) of wire type `type`, varints or fixed64s, 0 when absent (the
    /// last one read when repeated, as protobuf's scalars are).
    private static func pair(_ reader: inout WireReader, of type: WireType) -> (UInt64, UInt64)? {
        var values: (UInt64, UInt64) = (0, 0)
        while let (field, wireType) = reader.nextField() {
            guard field == 1 || field == 2 else {
                guard reader.skip(wireType) else { return nil }
                continue
            }
            guard wireType == type, let read = type == .varint ? reader.varint() : reader.fixed64() else { return nil }
            if field == 1 { values.0 = read } else { values.1 = read }
        }
        return reader.isValid ? values : nil
    }

    /// An `ArrayValue`.
    private static func array(_ reader: inout WireReader, depth: Int) -> FirestoreValue? {
        var values: [FirestoreValue] = []
        while let (field, type) = reader.nextField() {
            switch (field, type) {
            case (1, .lengthDelimited):
                guard let value = reader.message({ Self.value(&$0, depth: depth) }) else { return nil }
                values.append(value)
            case (1, _): return nil
            default: guard reader.skip(type) else { return nil }
            }
        }
        return reader.isValid ? .array(values) : nil
    }

    /// A `MapValue`.
    private static func map(_ reader: inout WireReader, depth: Int) -> FirestoreValue? {
        var entries: [(String, FirestoreValue)] = []
        while let (field, type) = reader.nextField() {
            switch (field, type) {
            case (1, .lengthDelimited):
                guard let entry = reader.message({ mapEntry(&$0, depth: depth) }) else { return nil }
                entries.append(entry)
            case (1, _): return nil
            default: guard reader.skip(type) else { return nil }
            }
        }
        return reader.isValid ? .map(fields(entries)) : nil
    }

    /// A map's entries as its fields, a later entry of a key replacing an earlier one (as SwiftProtobuf's
    /// maps do); sized once (growing a dictionary entry by entry rehashed it at every size).
    static func fields(_ entries: [(String, FirestoreValue)]) -> [String: FirestoreValue] {
        var fields: [String: FirestoreValue] = [:]
        fields.reserveCapacity(entries.count)
        for (key, value) in entries { fields[key] = value }
        return fields
    }
}

/// Protobuf's wire format, read forward over bytes. A read past the end, an over-long varint or a group
/// makes the reader invalid (and every later read fail).
struct WireReader {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0
    /// No read has failed.
    private(set) var isValid = true

    /// A reader over `bytes`.
    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The next field's number and wire type; `nil` at the end or on a malformed tag (one past five bytes,
    /// as a tag's 32 bits never need more, is one: SwiftProtobuf refuses it).
    mutating func nextField() -> (Int, WireType)? {
        guard isValid, offset < bytes.count else { return nil }
        let start = offset
        guard let tag = varint(), offset - start <= 5, tag >> 3 >= 1, tag >> 3 <= 0x1FFF_FFFF,
            let type = WireType(rawValue: UInt8(tag & 7))
        else {
            return fail()
        }
        return (Int(tag >> 3), type)
    }

    /// A varint (at most ten bytes, as protobuf writes one).
    mutating func varint() -> UInt64? {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count, shift < 70 {
            let byte = bytes[offset]
            offset += 1
            if shift == 63, byte > 1 { return fail() }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
        return fail()
    }

    /// Eight little-endian bytes.
    mutating func fixed64() -> UInt64? {
        guard offset + 8 <= bytes.count else { return fail() }
        var value: UInt64 = 0
        for index in 0..<8 { value |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
        offset += 8
        return value
    }

    /// A length-delimited field's bytes.
    mutating func lengthDelimited() -> UnsafeRawBufferPointer? {
        guard let length = varint(), length <= UInt64(bytes.count - offset) else { return fail() }
        let start = offset
        offset += Int(length)
        return UnsafeRawBufferPointer(rebasing: bytes[start..<offset])
    }

    /// A length-delimited field as UTF-8 text (invalid UTF-8 fails, as SwiftProtobuf refuses it). ASCII,
    /// the common case, is taken without the general validation (~1,000 instructions a name).
    mutating func string() -> String? {
        guard let data = lengthDelimited() else { return nil }
        if data.allSatisfy({ $0 < 0x80 }) { return String(decoding: data, as: UTF8.self) }
        guard let text = String(validating: data, as: UTF8.self) else { return fail() }
        return text
    }

    /// A length-delimited field read as a message by `read`, which must consume it all.
    mutating func message<T>(_ read: (inout WireReader) -> T?) -> T? {
        guard let data = lengthDelimited() else { return nil }
        var inner = WireReader(data)
        guard let value = read(&inner), inner.isValid, inner.offset == data.count else { return fail() }
        return value
    }

    /// Skips a field's value of `type`; false if it cannot be skipped.
    mutating func skip(_ type: WireType) -> Bool {
        switch type {
        case .varint: return varint() != nil
        case .fixed64: return advance(8)
        case .fixed32: return advance(4)
        case .lengthDelimited: return lengthDelimited() != nil
        case .startGroup, .endGroup: return fail() ?? false
        }
    }

    /// The whole field (its tag and value) whose tag was just read, as bytes to hand on.
    mutating func fieldBytes(_ field: Int, _ type: WireType) -> [UInt8]? {
        var tagBytes: [UInt8] = []
        ProtoVarint.write(UInt64(field) << 3 | UInt64(type.rawValue), into: &tagBytes)
        let start = offset
        guard skip(type) else { return nil }
        return tagBytes + Array(UnsafeRawBufferPointer(rebasing: bytes[start..<offset]))
    }

    private mutating func advance(_ count: Int) -> Bool {
        guard offset + count <= bytes.count else { return fail() ?? false }
        offset += count
        return true
    }

    private mutating func fail<T>() -> T? {
        isValid = false
        return nil
    }
}
