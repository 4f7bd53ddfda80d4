import Foundation

extension Data {
    /// Decodes base64url (RFC 4648 §5) with or without padding; also accepts standard base64. Every
    /// authenticated request decodes its token's parts with it, so the alphabet is mapped byte by byte.
    public init?(base64URLEncoded text: some StringProtocol) {
        var base64 = [UInt8]()
        base64.reserveCapacity(text.utf8.count + 3)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "-"): base64.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): base64.append(UInt8(ascii: "/"))
            default: base64.append(byte)
            }
        }
        let remainder = base64.count % 4
        if remainder == 1 { return nil }
        if remainder > 0 { base64 += repeatElement(UInt8(ascii: "="), count: 4 - remainder) }
        self.init(base64Encoded: Data(base64))
    }

    /// Base64url without padding, as JWTs use it.
    public func base64URLEncodedString() -> String {
        var encoded = [UInt8]()
        for byte in base64EncodedData() {
            switch byte {
            case UInt8(ascii: "+"): encoded.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): encoded.append(UInt8(ascii: "_"))
            case UInt8(ascii: "="): continue
            default: encoded.append(byte)
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }
}
