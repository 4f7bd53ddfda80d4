import EmulatorCore
import Foundation

/// The second factor a sign-in completed with, carried into ID and refresh tokens.
struct SecondFactor: Sendable, Equatable {
    /// The enrollment id.
    var identifier: String
    /// `phone` or `totp`.
    var provider: String
}

/// ID tokens, refresh tokens and MFA pending credentials in the official emulator's formats.
enum Tokens {
    static let lifetimeSeconds: Int64 = 3600

    /// Claim names a custom claim may not use.
    static let forbiddenClaims: Set<String> = [
        "iss", "aud", "sub", "iat", "exp", "nbf", "jti", "nonce", "azp", "acr", "amr", "cnf", "auth_time",
        "firebase", "at_hash", "c_hash",
    ]

    /// An unsigned ID token for `user` signed in with `provider`.
    static func idToken(
        for user: UserRecord, realm: Realm, provider: String, extraClaims: [String: JSONValue] = [:],
        secondFactor: SecondFactor? = nil, signInAttributes: JSONValue? = nil, now: Date
    ) -> String {
        var identities: [String: JSONValue] = [:]
        if let email = user.email { identities["email"] = [.string(email)] }
        for info in user.providerUserInfo ?? [] where info.providerId != Provider.password {
            var ids = identities[info.providerId]?.arrayValue ?? []
            ids.append(.string(info.rawId))
            identities[info.providerId] = .array(ids)
        }
        var claims: [String: JSONValue] = [:]
        if let name = user.displayName { claims["name"] = .string(name) }
        if let picture = user.photoUrl { claims["picture"] = .string(picture) }
        claims.merge(user.customClaims) { _, new in new }
        claims.merge(extraClaims) { _, new in new }
        claims["email"] = user.email.map(JSONValue.string)
        claims["email_verified"] = user.emailVerified.map(JSONValue.bool)
        claims["phone_number"] = user.phoneNumber.map(JSONValue.string)
        claims["provider_id"] = provider == Provider.anonymous ? .string(provider) : nil
        claims["auth_time"] = .int(authTime(of: user, now: now))
        claims["user_id"] = .string(user.localId)
        var firebase: [String: JSONValue] = [
            "identities": .object(identities), "sign_in_provider": .string(provider),
        ]
        if let secondFactor {
            firebase["second_factor_identifier"] = .string(secondFactor.identifier)
            firebase["sign_in_second_factor"] = .string(secondFactor.provider)
        }
        if let tenant = realm.tenantID { firebase["tenant"] = .string(tenant) }
        if let signInAttributes { firebase["sign_in_attributes"] = signInAttributes }
        claims["firebase"] = .object(firebase)
        let issuedAt = now.secondsSince1970
        claims["iat"] = .int(issuedAt)
        claims["exp"] = .int(issuedAt + lifetimeSeconds)
        claims["aud"] = .string(realm.projectID)
        claims["iss"] = .string("https://securetoken.google.com/\(realm.projectID)")
        claims["sub"] = .string(user.localId)
        return UnsignedJWT(payload: claims).encoded
    }

    /// `auth_time`: the last sign-in, else the last refresh, in seconds.
    static func authTime(of user: UserRecord, now: Date) -> Int64 {
        if let login = user.lastLoginAt.flatMap(Int64.init) { return login / 1000 }
        if let refresh = user.lastRefreshAt.flatMap(parseISODate) { return refresh.secondsSince1970 }
        return now.secondsSince1970
    }

    static func parseISODate(_ text: String) -> Date? {
        (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
            ?? (try? Date(text, strategy: Date.ISO8601FormatStyle()))
    }

    // MARK: Refresh tokens

    /// What a refresh token carries.
    struct RefreshRecord: Codable, Sendable, Equatable {
        var marker = "DO NOT MODIFY"
        var localId: String
        var provider: String
        var extraClaims: [String: JSONValue]
        var projectId: String
        var secondFactor: SecondFactorRecord?
        var tenantId: String?

        enum CodingKeys: String, CodingKey {
            case marker = "_AuthEmulatorRefreshToken"
            case localId, provider, extraClaims, projectId, secondFactor, tenantId
        }
    }

    struct SecondFactorRecord: Codable, Sendable, Equatable {
        var identifier: String
        var provider: String
    }

    /// base64(JSON record), as the official emulator encodes refresh tokens.
    static func refreshToken(
        for user: UserRecord, realm: Realm, provider: String, extraClaims: [String: JSONValue],
        secondFactor: SecondFactor?
    ) -> String {
        let record = RefreshRecord(
            localId: user.localId, provider: provider, extraClaims: extraClaims, projectId: realm.projectID,
            secondFactor: secondFactor.map { SecondFactorRecord(identifier: $0.identifier, provider: $0.provider) },
            tenantId: realm.tenantID)
        return opaque(record)
    }

    /// Decodes a refresh token; `INVALID_REFRESH_TOKEN` if it is not one of ours.
    static func decodeRefreshToken(_ token: String) throws(APIError) -> RefreshRecord {
        guard let record = decodeOpaque(RefreshRecord.self, from: token), !record.marker.isEmpty else {
            throw .auth("INVALID_REFRESH_TOKEN")
        }
        return record
    }

    // MARK: Opaque tokens

    /// base64(JSON): the format of every opaque token the emulator hands out (refresh tokens, MFA pending
    /// credentials, TOTP sessions). Production's are encrypted; the emulator's are readable on purpose.
    static func opaque(_ value: some Encodable) -> String {
        ((try? JSONEncoder.compact.encode(value)) ?? Data()).base64EncodedString()
    }

    /// Decodes an opaque token (standard or URL-safe base64); `nil` if it is not one.
    static func decodeOpaque<T: Decodable>(_ type: T.Type, from token: String) -> T? {
        guard let data = Data(base64Encoded: token) ?? Data(base64URLEncoded: token) else { return nil }
        return try? JSONDecoder().decode(T.self, from: data)
    }

    // MARK: MFA pending credentials

    struct PendingCredential: Codable, Sendable {
        var marker = "DO NOT MODIFY"
        var localId: String
        var signInProvider: String
        var projectId: String
        var tenantId: String?

        enum CodingKeys: String, CodingKey {
            case marker = "_AuthEmulatorMfaPendingCredential"
            case localId, signInProvider, projectId, tenantId
        }
    }

    static func pendingCredential(for user: UserRecord, realm: Realm, provider: String) -> String {
        let record = PendingCredential(
            localId: user.localId, signInProvider: provider, projectId: realm.projectID, tenantId: realm.tenantID)
        return opaque(record)
    }

    static func decodePendingCredential(_ token: String, realm: Realm, field: String) throws(APIError)
        -> PendingCredential
    {
        guard let record = decodeOpaque(PendingCredential.self, from: token) else {
            throw .auth("((Invalid \(field).mfaPendingCredential.))")
        }
        try require(
            record.projectId == realm.projectID && record.tenantId == realm.tenantID,
            "INVALID_PROJECT_ID : Project ID does not match MFA pending credential.")
        return record
    }
}
