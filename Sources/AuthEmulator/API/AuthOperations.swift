import EmulatorCore
import Foundation

/// The Auth API's operations, one extension per endpoint family (`AuthOperations+SignUp.swift`, ...).
/// Each runs atomically on a realm or project and returns the response body.
enum AuthOperations {
    static let minimumPasswordLength = 6

    /// Issues an ID token and a refresh token for `user`, recording the refresh time.
    static func issueTokens(
        for user: inout UserRecord, realm: inout Realm, provider: String, call: AuthCall,
        extraClaims: [String: JSONValue] = [:], secondFactor: SecondFactor? = nil
    ) -> [String: JSONValue] {
        user.lastRefreshAt = call.now.iso8601WithMilliseconds
        realm.pool.save(user)
        let saved = realm.pool[localId: user.localId] ?? user
        let idToken = Tokens.idToken(
            for: saved, realm: realm, provider: provider, extraClaims: extraClaims, secondFactor: secondFactor,
            now: call.now)
        let refreshToken = Tokens.refreshToken(
            for: saved, realm: realm, provider: provider, extraClaims: extraClaims, secondFactor: secondFactor)
        user = saved
        return [
            "idToken": .string(idToken), "refreshToken": .string(refreshToken),
            "expiresIn": .string(String(Tokens.lifetimeSeconds)),
        ]
    }

    /// A decoded ID token sent by a client, and the user it names.
    struct ParsedIDToken {
        var user: UserRecord
        var claims: [String: JSONValue]
        var signInProvider: String
    }

    /// Decodes (never verifies) an ID token and checks its user as the official emulator does.
    static func parseIDToken(_ token: String, realm: Realm) throws(APIError) -> ParsedIDToken {
        guard let jwt = UnsignedJWT(decoding: token) else { throw .auth("INVALID_ID_TOKEN") }
        let claims = jwt.payload
        if let tenant = claims["firebase"]?["tenant"]?.stringValue {
            try require(realm.tenantID != nil, "((Parsed token that belongs to tenant in a non-tenant project.))")
            try require(tenant == realm.tenantID, "TENANT_ID_MISMATCH")
        }
        let localId = claims["user_id"]?.stringValue ?? claims["sub"]?.stringValue ?? ""
        guard let user = realm.pool[localId: localId] else { throw .auth("USER_NOT_FOUND") }
        if let validSince = user.validSince.flatMap(Int64.init) {
            let issuedAt = claims["iat"]?.intValue ?? 0
            try require(issuedAt >= validSince, "TOKEN_EXPIRED")
        }
        try require(user.disabled != true, "USER_DISABLED")
        let provider = claims["firebase"]?["sign_in_provider"]?.stringValue ?? ""
        return ParsedIDToken(user: user, claims: claims, signInProvider: provider)
    }

    /// The password record of a new password: the emulator stores it in the clear, as the official one does.
    static func setPassword(_ password: String, on user: inout UserRecord, now: Date) {
        let salt = "fakeSalt" + RandomID.make(length: 20)
        user.salt = salt
        user.passwordHash = "fakeHash:salt=\(salt):password=\(password)"
        user.passwordHashConfig = nil
        user.passwordUpdatedAt = now.millisecondsSince1970
        user.validSince = String(now.secondsSince1970)
    }

    /// Whether `password` is the user's: the emulator's own fake hash, or an imported production hash.
    static func passwordMatches(_ password: String, user: UserRecord) -> Bool {
        guard let hash = user.passwordHash else { return false }
        if let salt = user.salt, hash == "fakeHash:salt=\(salt):password=\(password)" { return true }
        return user.passwordHashConfig?.matches(password, passwordHash: hash, salt: user.salt) ?? false
    }

    static func checkPasswordStrength(_ password: String) throws(APIError) {
        try require(
            password.count >= minimumPasswordLength,
            "WEAK_PASSWORD : Password should be at least \(minimumPasswordLength) characters")
    }

    /// `x@y`: exactly one `@` with text on both sides, as the official emulator accepts, within the length
    /// and characters an address can have.
    static func isValidEmail(_ email: String) -> Bool {
        // At most 254 bytes (RFC 5321's path limit), with no control characters or spaces.
        guard email.utf8.count <= 254, !email.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F })
        else { return false }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && !parts[1].isEmpty
    }

    static func canonicalEmail(_ email: String) -> String { email.lowercased() }

    /// E.164-ish: starts with `+` (production accepts more than a strict parser would).
    static func isValidPhoneNumber(_ phone: String) -> Bool { phone.hasPrefix("+") && phone.count > 1 }

    /// Whether sign-in for `user` must stop at a second factor.
    static func needsSecondFactor(_ user: UserRecord, realm: Realm) -> Bool {
        guard let factors = user.mfaInfo, !factors.isEmpty else { return false }
        return realm.settings.mfa.isOn
    }

    /// Finishes a first-factor sign-in: asks for the second factor if the user has one, else records the
    /// login and adds tokens to `fields`.
    static func completeSignIn(
        _ user: inout UserRecord, realm: inout Realm, provider: String, call: AuthCall,
        into fields: inout [String: JSONValue?]
    ) {
        if needsSecondFactor(user, realm: realm) {
            for (key, value) in mfaPending(user, realm: realm, provider: provider) { fields[key] = value }
        } else {
            user.lastLoginAt = call.nowMillisString
            for (key, value) in issueTokens(for: &user, realm: &realm, provider: provider, call: call) {
                fields[key] = value
            }
        }
    }

    /// `existing` if there is one, else a new user with a fresh localId; and whether it is new.
    static func existingOrNewUser(_ existing: UserRecord?, realm: Realm, call: AuthCall) -> (UserRecord, Bool) {
        if let existing { return (existing, false) }
        var user = UserRecord(localId: realm.pool.newLocalId())
        user.createdAt = call.nowMillisString
        return (user, true)
    }

    /// The response that asks a client for its second factor.
    static func mfaPending(_ user: UserRecord, realm: Realm, provider: String) -> [String: JSONValue] {
        [
            "mfaPendingCredential": .string(Tokens.pendingCredential(for: user, realm: realm, provider: provider)),
            "mfaInfo": .array((user.mfaInfo ?? []).map { $0.rendered(obfuscated: true) }),
        ]
    }

    /// Validates and serializes custom claims (`customAttributes`): an object of at most 1000 characters
    /// with no reserved claim names.
    static func validateCustomAttributes(_ text: String) throws(APIError) {
        try require(text.count <= 1000, "CLAIMS_TOO_LARGE")
        guard let value = try? JSONValue.parse(text), let claims = value.objectValue else {
            throw .auth("INVALID_CLAIMS")
        }
        try validateClaims(claims)
    }

    static func validateClaims(_ claims: [String: JSONValue]) throws(APIError) {
        for name in claims.keys.sorted() where Tokens.forbiddenClaims.contains(name) {
            throw .auth("FORBIDDEN_CLAIM : \(name)")
        }
    }

    /// `kind` + `fields`, dropping null members.
    static func response(_ kind: String, _ fields: [String: JSONValue?]) -> JSONValue {
        var object: [String: JSONValue] = ["kind": .string("identitytoolkit#\(kind)")]
        for (key, value) in fields {
            if let value, value != .null { object[key] = value }
        }
        return .object(object)
    }
}

extension Optional where Wrapped == String {
    /// The string as JSON, or `nil`.
    var json: JSONValue? { map(JSONValue.string) }
}

extension Optional where Wrapped == Bool {
    /// The boolean as JSON, or `nil`.
    var json: JSONValue? { map(JSONValue.bool) }
}
