import Foundation

/// Who a request speaks for, read from its `Authorization` header the way every emulator does.
public enum Credential: Sendable, Equatable {
    /// No credential: `request.auth == null`.
    case none
    /// The admin, who bypasses rules: `Bearer owner` (or `Firebase owner`), or a Google OAuth access token
    /// (`ya29.…`, what the admin SDKs send with real credentials), as the official emulators take them.
    case owner
    /// A Firebase ID token (decoded, never verified).
    case user(AuthToken)
    /// A bearer value that is neither `owner` nor a decodable JWT (an OAuth access token, say).
    case opaque(String)

    /// Reads an `Authorization` header value (`Bearer <t>` or `Firebase <t>`, the scheme in any case).
    public init(authorizationHeader: String?) {
        guard let header = authorizationHeader?.trimmedOfWhitespace, !header.isEmpty else {
            self = .none
            return
        }
        // On the bytes: splitting and lowercasing characters cost ~8,000 instructions a request.
        var text = header
        let token = text.withUTF8 { bytes -> String? in
            guard let space = bytes.firstIndex(of: UInt8(ascii: " ")),
                bytes[..<space].equalsIgnoringASCIICase("bearer") || bytes[..<space].equalsIgnoringASCIICase("firebase")
            else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[(space + 1)...]), as: UTF8.self)
        }
        guard let token else {
            self = .opaque(header)
            return
        }
        self.init(token: token.trimmedOfWhitespace)
    }

    /// Reads a bare token, as sent in `?auth=` or after the scheme.
    public init(token: String) {
        if Self.isAdmin(token: token) {
            self = .owner
        } else if let jwt = UnsignedJWT(decoding: token), let auth = AuthToken(claims: jwt.payload) {
            self = .user(auth)
        } else {
            self = .opaque(token)
        }
    }
}

extension Credential {
    /// The signed-in user's uid, if the credential is a user's.
    public var uid: String? {
        if case .user(let token) = self { return token.uid }
        return nil
    }

    /// Whether a bearer token speaks for the admin: `owner` (any case), or a Google OAuth access token
    /// (`ya29.`). The one answer every emulator gives (the official Firestore emulator bypasses rules for
    /// both; the Auth emulator takes both as admin credentials).
    public static func isAdmin(token: String) -> Bool {
        // Compared on the bytes, ignoring ASCII case (no other character lowercases to these letters):
        // lowercasing the whole token first cost more than the rest of a small call for an ID token.
        var token = token
        return token.withUTF8 { $0[...].equalsIgnoringASCIICase("owner") || $0.prefix(5).equalsIgnoringASCIICase("ya29.") }
    }
}

/// `request.auth` in rules: the uid and the decoded claims of an ID token.
public struct AuthToken: Sendable, Equatable {
    /// The user id (`user_id`, else `sub`).
    public var uid: String
    /// Every claim of the token, as `request.auth.token`.
    public var claims: [String: JSONValue]

    /// Builds `request.auth` from ID-token claims; `nil` without a non-empty `user_id` or `sub`.
    public init?(claims: [String: JSONValue]) {
        guard let uid = claims["user_id"]?.stringValue ?? claims["sub"]?.stringValue, !uid.isEmpty else {
            return nil
        }
        self.uid = uid
        self.claims = claims
    }
}

extension String {
    /// The text without leading and trailing white space (as `trimmingCharacters(in: .whitespaces)`), with
    /// no work when there is none to remove.
    fileprivate var trimmedOfWhitespace: String {
        let visibleASCII = UInt8(ascii: "!")...UInt8(ascii: "~")
        if let first = utf8.first, let last = utf8.last, visibleASCII.contains(first), visibleASCII.contains(last) {
            return self
        }
        guard let first = unicodeScalars.first, let last = unicodeScalars.last,
            first.properties.isWhitespace || last.properties.isWhitespace
        else { return self }
        return trimmingCharacters(in: .whitespaces)
    }
}
