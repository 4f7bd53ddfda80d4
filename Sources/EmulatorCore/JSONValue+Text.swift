import Foundation

/// Reading and writing JSON text directly over UTF-8 bytes: the emulators' hot path (a 500-document commit
/// is parsed and answered in well under a millisecond), where `JSONDecoder`'s `Codable` machinery spends
/// most of its time building coding paths.
extension JSONValue {
    /// Parses JSON text; throws `JSONSyntaxError` on malformed input. Numbers without a fraction or
    /// exponent that fit 64 bits are integers; all others doubles.
    public static func parse(_ data: Data) throws -> JSONValue {
        try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws -> JSONValue in
            var reader = JSONReader(bytes: raw.bindMemory(to: UInt8.self))
            reader.skipWhitespace()
            let value = try reader.readValue(depth: 0)
            reader.skipWhitespace()
            guard reader.isAtEnd else { throw reader.error("unexpected text after the JSON value") }
            return value
        }
    }

    /// Parses JSON text; throws `JSONSyntaxError` on malformed input.
    public static func parse(_ text: String) throws -> JSONValue {
        try parse(Data(text.utf8))
    }

    /// Compact JSON text with sorted keys and unescaped slashes.
    public func serialized() -> String {
        String(decoding: serializedBytes(), as: UTF8.self)
    }

    /// Indented JSON text with sorted keys and unescaped slashes, for people to read (`print=pretty`, files
    /// to paste from).
    public func prettySerialized() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return serialized() }
        return String(decoding: data, as: UTF8.self)
    }

}

/// A value that writes itself as compact JSON text (sorted keys, unescaped slashes) straight into bytes,
/// without a `JSONValue` tree in between: a response's documents, which are most of its bytes.
public protocol JSONWritable {
    /// Writes the value's JSON text.
    func write(to writer: inout JSONWriter)
}

extension JSONWritable {
    /// The value's JSON text as UTF-8 bytes (`serialized()`'s, for a `JSONValue`), for a response body.
    public func serializedBytes() -> [UInt8] {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.bytes
    }
}

extension JSONValue: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        switch self {
        case .null: writer.raw("null")
        case .bool(let value): writer.bool(value)
        case .int(let value): writer.int(value)
        case .double(let value): writer.double(value)
        case .string(let value): writer.string(value)
        case .array(let values): writer.array(values) { $0.write(to: &$1) }
        case .object(let members): writer.object(members) { $0.write(to: &$1) }
        }
    }
}

/// Compact JSON text being written as UTF-8 bytes: the one writer of strings, numbers and key order that
/// `JSONValue` and the values that write themselves share.
public struct JSONWriter {
    /// The text so far.
    public private(set) var bytes: [UInt8] = []

    /// An empty writer with room for `capacity` bytes.
    public init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// Writes `text` as it is (punctuation, a literal, a key known to need no escape).
    public mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Writes `bytes` as they are (text known to need no escape, such as a formatted number or time).
    public mutating func raw(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes.append(contentsOf: bytes)
    }

    /// Writes `"key":`.
    public mutating func key(_ key: String) {
        string(key)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Writes an object of `members`, keys in `sorted` order, each value with `write`.
    @inlinable
    public mutating func object<Value>(_ members: [String: Value], _ write: (Value, inout JSONWriter) -> Void) {
        raw("{")
        for (index, member) in Self.sorted(members).enumerated() {
            if index > 0 { raw(",") }
            key(member.key)
            write(member.value, &self)
        }
        raw("}")
    }

    /// Writes an array of `elements`, each with `write`.
    @inlinable
    public mutating func array<Elements: Sequence>(_ elements: Elements, _ write: (Elements.Element, inout JSONWriter) -> Void) {
        raw("[")
        var first = true
        for element in elements {
            if !first { raw(",") }
            first = false
            write(element, &self)
        }
        raw("]")
    }

    /// Writes `true` or `false`.
    public mutating func bool(_ value: Bool) {
        raw(value ? "true" : "false")
    }

    /// Writes an integer.
    public mutating func int(_ value: Int64) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// Writes a double: integral values without a fraction (`2`), others in Swift's shortest form;
    /// non-finite values (not JSON) as `null`.
    public mutating func double(_ value: Double) {
        guard value.isFinite else { return raw("null") }
        if value == value.rounded(), abs(value) < 1e15 { return int(Int64(value)) }
        bytes.append(contentsOf: "\(value)".utf8)
    }

    private static let hex = Array("0123456789abcdef".utf8)

    /// Writes `string` quoted and escaped. Runs of bytes that need no escape (most strings are one) are
    /// copied whole.
    public mutating func string(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        unquoted(string)
        bytes.append(UInt8(ascii: "\""))
    }

    /// Writes `string` escaped but without its quotes: one part of a string written piece by piece between
    /// `raw("\"")`s (a resource name from its ids).
    public mutating func unquoted(_ string: String) {
        var string = string
        string.withUTF8 { text in
            var start = 0
            for index in text.indices {
                let byte = text[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[start..<index]))
                writeEscape(of: byte)
                start = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[start...]))
        }
    }

    /// Writes the escape of `byte`, a quote, a backslash or a control character.
    private mutating func writeEscape(of byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case 0..<0x20:
            bytes.append(contentsOf: "u00".utf8)
            bytes.append(Self.hex[Int(byte >> 4)])
            bytes.append(Self.hex[Int(byte & 0xF)])
        default: bytes.append(byte)  // `"` and `\`
        }
    }

    /// An object's members in the order they are written: keys in UTF-8 byte order, which is code point
    /// order (`String`'s `<` gives the same order for the normalized keys JSON carries and costs several
    /// times more). Inlinable, so callers get it specialized for their values: the generic version cost
    /// more than the rest of a document's text.
    @inlinable
    public static func sorted<Value>(_ members: [String: Value]) -> [(key: String, value: Value)] {
        members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }
}

/// Malformed JSON text, with the byte offset where reading stopped.
public struct JSONSyntaxError: Error, Sendable, CustomStringConvertible {
    /// What was wrong.
    public var reason: String
    /// The byte offset in the input.
    public var offset: Int

    /// `unexpected character at offset 12`.
    public var description: String { "\(reason) at offset \(offset)" }
}

/// A cursor over JSON bytes: `JSONValue.parse`'s, and one a reader of a known shape can drive itself,
/// token by token, reading scalars and strings exactly as `parse` reads them.
public struct JSONReader {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    /// Containers nested deeper than this are refused (no stack overflow on hostile input).
    static let maximumDepth = 512

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Runs `body` with a reader at the start of `bytes`.
    public static func reading<Result>(_ bytes: UnsafeRawBufferPointer, _ body: (inout JSONReader) -> Result) -> Result {
        var reader = JSONReader(bytes: bytes.bindMemory(to: UInt8.self))
        return body(&reader)
    }

    /// Whether every byte has been read.
    public var isAtEnd: Bool { index >= bytes.count }

    /// The next byte, if any.
    public var next: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// Skips white space, then reads `byte` if it comes next.
    public mutating func take(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    func error(_ reason: String) -> JSONSyntaxError { JSONSyntaxError(reason: reason, offset: index) }

    /// Skips spaces, tabs and line ends.
    public mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }

    /// Reads the value that starts here (containers `depth` deep).
    public mutating func readValue(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try readObject(depth: depth + 1)
        case UInt8(ascii: "["): return try readArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try readNumber()
        default: throw error("unexpected character")
        }
    }

    private mutating func expect(_ word: StaticString) throws(JSONSyntaxError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("unexpected end of input") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            throw error("unexpected character")
        }
        index += count
    }

    private mutating func readObject(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth <= Self.maximumDepth else { throw error("nested too deeply") }
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a member name") }
            let key = try readString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipWhitespace()
            members[key] = try readValue(depth: depth)
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            } else {
                throw error("expected ',' or '}'")
            }
        }
    }

    private mutating func readArray(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth <= Self.maximumDepth else { throw error("nested too deeply") }
        index += 1
        var values: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(values)
        }
        while true {
            skipWhitespace()
            values.append(try readValue(depth: depth))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(values)
            } else {
                throw error("expected ',' or ']'")
            }
        }
    }

    /// Reads the string whose opening quote is next, escapes resolved.
    public mutating func readString() throws(JSONSyntaxError) -> String {
        index += 1
        let start = index
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("control character in string") }
            index += 1
        }
        var scalars: [UInt8] = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: scalars, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw error("unexpected end of input") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "u"):
                    var code = try readHex4()
                    if (0xD800..<0xDC00).contains(code), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    {
                        index += 2
                        let low = try readHex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("invalid surrogate pair") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    let scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
                    scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
                default: throw error("invalid escape")
                }
            case 0..<0x20:
                throw error("control character in string")
            default:
                scalars.append(byte)
            }
        }
        throw error("unterminated string")
    }

    private mutating func readHex4() throws(JSONSyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("unexpected end of input") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private mutating func readNumber() throws(JSONSyntaxError) -> JSONValue {
        let start = index
        var isInteger = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else {
            throw error("invalid number")
        }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            let digits = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard index > digits else { throw error("invalid number") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            let digits = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard index > digits else { throw error("invalid number") }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if isInteger, let value = Int64(text) { return .int(value) }
        // Beyond the double range (`1e400`, a 400-digit integer) is refused, not read as infinity.
        guard let value = Double(text), value.isFinite else { throw error("number out of range") }
        return .double(value)
    }
}
