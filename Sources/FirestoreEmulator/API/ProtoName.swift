/// Field names of the Firestore protos in their two spellings: JSON (`updateMask`) and proto
/// (`update_mask`), which production's error messages use.
enum ProtoName {
    /// `updateMask` → `update_mask`.
    static func snakeCase(_ jsonName: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(jsonName.utf8.count + 4)
        for byte in jsonName.utf8 {
            if byte >= UInt8(ascii: "A"), byte <= UInt8(ascii: "Z") {
                bytes.append(UInt8(ascii: "_"))
                bytes.append(byte + 32)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
