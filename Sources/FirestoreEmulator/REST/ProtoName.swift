import EmulatorCore

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

    /// The set members of `json`, a proto3 JSON object of message `type` (`google.firestore.v1.Write`) at
    /// `location`, by their JSON names among `fields` (the proto spelling is accepted too); `null` members
    /// are unset. Not an object, or an unknown member (reported in name order), is production's
    /// INVALID_ARGUMENT.
    static func members(
        of json: JSONValue, at location: String, type: String, fields: [String]
    ) throws(FirestoreError) -> [String: JSONValue] {
        guard case .object(let object) = json else {
            throw FirestoreError(
                .invalidArgument, "Invalid value at '\(location)' (type.googleapis.com/\(type)), \(json.serialized())")
        }
        // The common case, every member set and named as in JSON: the object as it is.
        if object.allSatisfy({ $0.value != .null && fields.contains($0.key) }) { return object }
        var members: [String: JSONValue] = [:]
        for (key, value) in object.sorted(by: { $0.key < $1.key }) {
            guard let field = fields.first(where: { $0 == key }) ?? fields.first(where: { snakeCase($0) == key }) else {
                throw FirestoreError(
                    .invalidArgument, "Invalid JSON payload received. Unknown name \"\(key)\" at '\(location)': Cannot find field.")
            }
            if value != .null { members[field] = value }
        }
        return members
    }
}
