/// Number, string and bytes literals, with CEL's lexical rules (the rules language's expressions are CEL's):
/// decimal and `0x` hex integers, floats with a fraction (`1.5`, `.5`; no exponent: the official parser
/// refuses `1e3` with "Unexpected 'e3'."), strings in single or double quotes (or tripled, spanning lines),
/// `r` raw and `b` bytes prefixes, and CEL's escapes.
extension Lexer {
    /// An integer or float literal starting at the next byte (a digit, or a `.` followed by a digit).
    mutating func number(at start: SourceLocation) -> Token {
        if peek() == UInt8(ascii: "0"), peek(1) == UInt8(ascii: "x") || peek(1) == UInt8(ascii: "X") {
            return Token(kind: hexInteger(at: start), location: start)
        }
        let begin = offset
        var isFloat = false
        while peek(is: ByteClass.digit) { bump() }
        if peek() == UInt8(ascii: "."), peek(1, is: ByteClass.digit) {
            isFloat = true
            bump()
            while peek(is: ByteClass.digit) { bump() }
        }
        let text = String(decoding: bytes[begin..<offset], as: UTF8.self)
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            let signed = peek(1) == UInt8(ascii: "+") || peek(1) == UInt8(ascii: "-")
            if peek(signed ? 2 : 1, is: ByteClass.digit) {
                let exponentStart = location
                let exponentBegin = offset
                bump()
                if signed { bump() }
                while peek(is: ByteClass.digit) { bump() }
                let exponent = String(decoding: bytes[exponentBegin..<offset], as: UTF8.self)
                error("Unexpected '\(exponent)'.", at: exponentStart)
            }
        }
        if isFloat {
            guard let value = Double(text), value.isFinite else {
                error("float literal '\(text)' is out of range", at: start)
                return Token(kind: .float(0), location: start)
            }
            return Token(kind: .float(value), location: start)
        }
        guard let value = UInt64(text) else {
            error("integer literal '\(text)' is out of range", at: start)
            return Token(kind: .int(0), location: start)
        }
        return Token(kind: .int(value), location: start)
    }

    /// `0x1F`: the next bytes are `0x` or `0X`.
    private mutating func hexInteger(at start: SourceLocation) -> Token.Kind {
        let begin = offset
        bump()
        bump()
        var value: UInt64 = 0
        var overflow = false
        var digits = 0
        while let byte = peek(), ByteClass.hexDigit(byte) {
            let (shifted, over) = value.multipliedReportingOverflow(by: 16)
            value = shifted + UInt64(Self.hexValue(byte))
            overflow = overflow || over
            digits += 1
            bump()
        }
        let text = String(decoding: bytes[begin..<offset], as: UTF8.self)
        if digits == 0 {
            error("expected hexadecimal digits after '\(text)'", at: start)
        } else if overflow {
            error("integer literal '\(text)' is out of range", at: start)
            return .int(0)
        }
        return .int(value)
    }

    /// A string or bytes literal; the next byte is its opening quote.
    mutating func string(raw: Bool, bytes isBytes: Bool, at start: SourceLocation) -> Token.Kind {
        let quote = peek() ?? UInt8(ascii: "'")
        let triple = peek(1) == quote && peek(2) == quote
        for _ in 0..<(triple ? 3 : 1) { bump() }
        var content: [UInt8] = []
        while true {
            guard let byte = peek() else {
                error("unterminated string literal", at: start)
                break
            }
            if byte == quote {
                if !triple {
                    bump()
                    break
                }
                if peek(1) == quote, peek(2) == quote {
                    for _ in 0..<3 { bump() }
                    break
                }
            }
            if !triple, byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                error("unterminated string literal", at: start)
                break
            }
            if byte == UInt8(ascii: "\\"), !raw {
                escape(into: &content, bytes: isBytes)
                continue
            }
            content.append(byte)
            bump()
        }
        return isBytes ? .bytes(content) : .string(String(decoding: content, as: UTF8.self))
    }

    /// One escape sequence; the next byte is its backslash. `\x` and octal escapes are code points in strings
    /// and raw bytes in bytes literals; `\u` and `\U` are code points (UTF-8 encoded in bytes literals).
    private mutating func escape(into content: inout [UInt8], bytes isBytes: Bool) {
        let start = location
        bump()
        guard let letter = peek(), letter != UInt8(ascii: "\n"), letter != UInt8(ascii: "\r") else {
            return  // the string loop reports the unterminated literal
        }
        let simple: [UInt8: UInt8] = [
            UInt8(ascii: "n"): 0x0A, UInt8(ascii: "r"): 0x0D, UInt8(ascii: "t"): 0x09, UInt8(ascii: "a"): 0x07,
            UInt8(ascii: "b"): 0x08, UInt8(ascii: "f"): 0x0C, UInt8(ascii: "v"): 0x0B, UInt8(ascii: "\\"): 0x5C,
            UInt8(ascii: "'"): 0x27, UInt8(ascii: "\""): 0x22, UInt8(ascii: "`"): 0x60, UInt8(ascii: "?"): 0x3F,
        ]
        if let value = simple[letter] {
            bump()
            content.append(value)
            return
        }
        let begin = offset
        var value: UInt32?
        switch letter {
        case UInt8(ascii: "x"), UInt8(ascii: "X"):
            bump()
            value = digits(2, radix: 16)
        case UInt8(ascii: "u"):
            bump()
            value = digits(4, radix: 16)
        case UInt8(ascii: "U"):
            bump()
            value = digits(8, radix: 16)
        case UInt8(ascii: "0")...UInt8(ascii: "3"):
            value = digits(3, radix: 8)
        default:
            bump()
            while let byte = peek(), byte & 0xC0 == 0x80 { bump() }
        }
        let sequence = "\\" + String(decoding: bytes[begin..<offset], as: UTF8.self)
        guard let value else {
            error("invalid escape sequence '\(sequence)'", at: start)
            return
        }
        let isByteEscape = letter != UInt8(ascii: "u") && letter != UInt8(ascii: "U")
        if isBytes, isByteEscape {
            content.append(UInt8(value))
        } else if let scalar = Unicode.Scalar(value) {
            content.append(contentsOf: Character(scalar).utf8)
        } else {
            error("invalid Unicode escape '\(sequence)'", at: start)
        }
    }

    /// Exactly `count` digits in `radix`, consumed; `nil` if fewer follow (those are consumed too).
    private mutating func digits(_ count: Int, radix: UInt32) -> UInt32? {
        var value: UInt32 = 0
        for _ in 0..<count {
            guard let byte = peek(), ByteClass.hexDigit(byte), Self.hexValue(byte) < radix else { return nil }
            value = value * radix + Self.hexValue(byte)
            bump()
        }
        return value
    }

    /// The value of a hex digit.
    private static func hexValue(_ byte: UInt8) -> UInt32 {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
        default: return UInt32(byte - UInt8(ascii: "A") + 10)
        }
    }
}
