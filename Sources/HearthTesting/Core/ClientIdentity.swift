import EmulatorCore

/// Whom a test client speaks for; every request it sends carries this.
public enum ClientIdentity: Sendable, Hashable {
    /// No credential: the rules see `request.auth == null` (`auth == null` in database rules).
    case unauthenticated
    /// A Firebase ID token; the emulators decode it without checking a signature.
    case idToken(String)
    /// The emulators' admin credential (`owner`): rules are bypassed.
    case admin

    /// An unsigned ID token for `uid` in `projectID`, shaped like the ones rules-unit-testing makes:
    /// issued at 0, expiring an hour later, signed in with a custom token. `claims` are added to (and may
    /// override) the standard ones, as custom claims are; `sub` and `user_id` are always `uid`.
    public static func user(_ uid: String, projectID: String, claims: [String: JSONValue] = [:]) -> ClientIdentity {
        var payload: [String: JSONValue] = [
            "iss": .string("https://securetoken.google.com/\(projectID)"),
            "aud": .string(projectID),
            "iat": 0,
            "exp": 3600,
            "auth_time": 0,
            "firebase": ["sign_in_provider": "custom", "identities": [:]],
        ]
        payload.merge(claims) { _, custom in custom }
        payload["sub"] = .string(uid)
        payload["user_id"] = .string(uid)
        let header: [String: JSONValue] = ["alg": "none", "kid": "fakekid", "typ": "JWT"]
        return .idToken(UnsignedJWT(payload: payload, header: header).encoded)
    }

    /// The bare token (`owner` for admin), or nil when there is none.
    public var token: String? {
        switch self {
        case .unauthenticated: return nil
        case .idToken(let token): return token
        case .admin: return "owner"
        }
    }

    /// The `Authorization` header value with `scheme` (`Bearer`, or `Firebase` for Storage's v0 API).
    public func authorization(scheme: String = "Bearer") -> String? {
        token.map { "\(scheme) \($0)" }
    }
}
