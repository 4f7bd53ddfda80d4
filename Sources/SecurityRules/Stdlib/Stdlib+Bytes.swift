/// rules.Bytes: `size()`, `toBase64()` (base64url, RFC 4648 §5, padded) and `toHexString()` (uppercase).
extension Stdlib {
    /// Methods of rules.Bytes.
    static let bytesMethods: [String: Method<[UInt8]>] = [
        "size": Method { bytes, _ in .int(Int64(bytes.count)) },
        "toBase64": Method { bytes, _ in .string(base64URL(bytes)) },
        "toHexString": Method { bytes, _ in .string(bytes.map(RuleValue.hex).joined()) },
    ]

    /// `bytes` in the URL-safe base64 alphabet (`-` and `_`), with `=` padding.
    static func base64URL(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".unicodeScalars)
        var result = String.UnicodeScalarView()
        var index = 0
        while index < bytes.count {
            let count = min(3, bytes.count - index)
            var group: UInt32 = 0
            for offset in 0..<3 { group = group << 8 | UInt32(offset < count ? bytes[index + offset] : 0) }
            for position in 0..<4 {
                if position <= count {
                    result.append(alphabet[Int(group >> (18 - 6 * UInt32(position)) & 0x3F)])
                } else {
                    result.append("=")
                }
            }
            index += 3
        }
        return String(result)
    }
}
