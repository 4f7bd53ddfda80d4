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
        let utf8 = self.utf8
        guard utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) }) else {
            return String(self)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                continue
            }
            guard let high = iterator.next().flatMap(Self.hexValue), let low = iterator.next().flatMap(Self.hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
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
