import Foundation

/// A JSON Web Token as the emulators use it: encoded with `alg: none` and decoded without verification.
public struct UnsignedJWT: Sendable, Equatable {
    /// The JOSE header.
    public var header: [String: JSONValue]
    /// The claims.
    public var payload: [String: JSONValue]

    /// Creates a token with the header the Firebase emulators write.
    public init(payload: [String: JSONValue], header: [String: JSONValue] = ["alg": "none", "typ": "JWT"]) {
        self.header = header
        self.payload = payload
    }

    /// Decodes `header.payload[.signature]`, ignoring any signature; `nil` if it is not a JWT with JSON objects.
    public init?(decoding token: some StringProtocol) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3,
            let headerData = Data(base64URLEncoded: parts[0]),
            let payloadData = Data(base64URLEncoded: parts[1]),
            let header = (try? JSONValue.parse(headerData))?.objectValue,
            let payload = (try? JSONValue.parse(payloadData))?.objectValue
        else { return nil }
        self.header = header
        self.payload = payload
    }

    /// The compact serialization with an empty signature: `header.payload.`.
    public var encoded: String {
        let header = Data(JSONValue.object(header).serialized().utf8).base64URLEncodedString()
        let payload = Data(JSONValue.object(payload).serialized().utf8).base64URLEncodedString()
        return "\(header).\(payload)."
    }
}
