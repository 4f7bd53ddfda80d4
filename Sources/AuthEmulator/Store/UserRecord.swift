import EmulatorCore

/// An Auth user as the Identity Toolkit `UserInfo` resource describes it; field names are the wire names.
struct UserRecord: Codable, Sendable, Equatable {
    var localId: String
    var email: String?
    var emailVerified: Bool?
    var displayName: String?
    var photoUrl: String?
    var phoneNumber: String?
    var passwordHash: String?
    var salt: String?
    /// Milliseconds since the epoch (a number on the wire).
    var passwordUpdatedAt: Int64?
    /// Seconds since the epoch (a string on the wire).
    var validSince: String?
    var disabled: Bool?
    /// Milliseconds since the epoch (a string on the wire).
    var createdAt: String?
    /// Milliseconds since the epoch (a string on the wire).
    var lastLoginAt: String?
    /// RFC 3339.
    var lastRefreshAt: String?
    /// Custom claims as a JSON object serialized to a string.
    var customAttributes: String?
    var providerUserInfo: [ProviderUserInfo]?
    var mfaInfo: [MFAEnrollment]?
    var tenantId: String?
    var initialEmail: String?
    var emailLinkSignin: Bool?
    var customAuth: Bool?
    /// How an imported `passwordHash` was made (never rendered to clients).
    var passwordHashConfig: ImportedPasswordHash?

    init(localId: String) {
        self.localId = localId
    }

    /// The custom claims, parsed.
    var customClaims: [String: JSONValue] {
        guard let customAttributes, let value = try? JSONValue.parse(customAttributes) else { return [:] }
        return value.objectValue ?? [:]
    }

    /// The linked provider with `providerId`.
    func provider(_ providerId: String) -> ProviderUserInfo? {
        providerUserInfo?.first { $0.providerId == providerId }
    }
}

/// One linked identity of a user (`providerUserInfo[]`).
struct ProviderUserInfo: Codable, Sendable, Equatable {
    var providerId: String
    var rawId: String
    var federatedId: String?
    var email: String?
    var displayName: String?
    var photoUrl: String?
    var phoneNumber: String?
    var screenName: String?
}

/// A second factor enrolled by a user (`mfaInfo[]`).
struct MFAEnrollment: Codable, Sendable, Equatable {
    var mfaEnrollmentId: String
    var displayName: String?
    /// RFC 3339.
    var enrolledAt: String?
    /// E.164 phone number, for SMS factors.
    var phoneInfo: String?
    /// Present (as `{}`) for TOTP factors.
    var totpInfo: TOTPInfo?
    /// The TOTP shared secret (base32); never rendered to clients.
    var totpSecret: String?

    /// Marker object for TOTP factors, empty on the wire.
    struct TOTPInfo: Codable, Sendable, Equatable {}

    /// The factor id clients see: `phone` or `totp`.
    var factorID: String { totpInfo != nil ? "totp" : "phone" }

    /// The enrollment as sent to clients; `obfuscated` hides all but the last four digits of the phone.
    func rendered(obfuscated: Bool) -> JSONValue {
        var object: [String: JSONValue] = ["mfaEnrollmentId": .string(mfaEnrollmentId)]
        if let displayName { object["displayName"] = .string(displayName) }
        if let enrolledAt { object["enrolledAt"] = .string(enrolledAt) }
        if let phoneInfo { object["phoneInfo"] = .string(obfuscated ? Self.obfuscate(phoneInfo) : phoneInfo) }
        if totpInfo != nil { object["totpInfo"] = [:] }
        return .object(object)
    }

    /// `+*******1234`: every digit but the last four replaced by `*`.
    static func obfuscate(_ phone: String) -> String {
        var digitsSeen = 0
        let hidden = phone.reversed().map { character -> Character in
            guard character.isASCII, character.isNumber else { return character }
            digitsSeen += 1
            return digitsSeen > 4 ? "*" : character
        }
        return String(hidden.reversed())
    }
}

extension UserRecord {
    /// The record as a JSON object for `users[]` in responses (TOTP secrets removed).
    var json: JSONValue {
        var copy = self
        copy.passwordHashConfig = nil
        copy.mfaInfo = mfaInfo?.map { var factor = $0; factor.totpSecret = nil; return factor }
        var value = JSONValue(encodable: copy)
        if let mfaInfo, !mfaInfo.isEmpty, var object = value.objectValue {
            object["mfaInfo"] = .array(mfaInfo.map { $0.rendered(obfuscated: false) })
            value = .object(object)
        }
        return value
    }
}
