extension StringProtocol {
    /// The text with its percent escapes (`%2F`) decoded, as Foundation's `removingPercentEncoding` does it:
    /// `nil` for a `%` not followed by two hex digits or for bytes that are not UTF-8. Text without a `%`
    /// is returned as it is, with no work (URL paths rarely have escapes, and every request decodes one).
    public var percentDecoded: String? {
        decoded(plusIsSpace: false)
    }

    /// The text as a form field (`application/x-www-form-urlencoded`) carries it: `+` is a space, then
    /// percent escapes are decoded. Text whose escapes do not decode keeps them, with its `+`s as spaces.
    public var formDecoded: String {
        if let decoded = decoded(plusIsSpace: true) { return decoded }
        return String(decoding: utf8.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
    }

    private func decoded(plusIsSpace: Bool) -> String? {
        // On the bytes of a concrete String: a loop over a generic `StringProtocol`'s UTF-8 view is not
        // specialized across modules and cost ~20 ns a byte (WebChannel bodies are kilobytes of escapes).
        var text = String(self)
        let decoded = text.withUTF8 { utf8 -> (bytes: [UInt8]?, valid: Bool) in
            guard utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }) else {
                return (nil, true)
            }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(utf8.count)
            var index = 0
            while index < utf8.count {
                let byte = utf8[index]
                index += 1
                guard byte == UInt8(ascii: "%") else {
                    bytes.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                    continue
                }
                guard index + 1 < utf8.count, let high = Self.hexValue(utf8[index]),
                    let low = Self.hexValue(utf8[index + 1])
                else {
                    return (nil, false)
                }
                bytes.append(high << 4 | low)
                index += 2
            }
            return (bytes, true)
        }
        guard decoded.valid else { return nil }
        guard let bytes = decoded.bytes else { return text }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
