import EmulatorCore

/// Who an operation speaks for: the emulator's admin (`Bearer owner`, `gauth` with `owner`), which bypasses
/// rules, or a user whose `auth` variable the rules see (`nil`: unauthenticated).
enum DatabaseAuth: Sendable, Equatable {
    /// Bypasses rules.
    case admin
    /// Rules see `auth` as this object (`{uid, provider, token}`), or `null`.
    case user(JSONValue?)

    /// Unauthenticated.
    static let anonymous = DatabaseAuth.user(nil)

    /// The identity behind a credential read from an `Authorization` header or an `auth=` parameter;
    /// `nil` for a token that is neither `owner` nor a decodable ID token.
    init?(_ credential: Credential) {
        switch credential {
        case .none: self = .anonymous
        case .owner: self = .admin
        case .user(let token): self = .user(Self.authVariable(token))
        case .opaque: return nil
        }
    }

    /// The rules' `auth`: `uid`, `provider` (the sign-in provider of the token's `firebase` claim) and
    /// `token` (every claim).
    static func authVariable(_ token: AuthToken) -> JSONValue {
        let provider = token.claims["firebase"]?["sign_in_provider"]?.stringValue ?? "custom"
        return .object(["uid": .string(token.uid), "provider": .string(provider), "token": .object(token.claims)])
    }

    /// The rules' `auth` (nil for the admin and the unauthenticated).
    var variable: JSONValue? {
        if case .user(let variable) = self { return variable }
        return nil
    }
}
