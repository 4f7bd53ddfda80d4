import EmulatorCore
import Foundation

extension AuthOperations {
    /// `accounts:signInWithPassword`.
    static func signInWithPassword(_ realm: inout Realm, _ call: AuthCall) throws(APIError) -> JSONValue {
        let body = call.body
        try require(realm.settings.allowPasswordSignup, "PASSWORD_LOGIN_DISABLED")
        guard let email = try body.string("email") else { throw .auth("MISSING_EMAIL") }
        try require(isValidEmail(email), "INVALID_EMAIL")
        let password = try body.requiredString("password", missing: "MISSING_PASSWORD")
        if body.has("captchaResponse") || body.has("captchaChallenge") {
            throw .authNotImplemented("captcha")
        }
        let canonical = canonicalEmail(email)
        let found = realm.pool.user(email: canonical)
        let privacy = realm.settings.improvedEmailPrivacy
        guard var user = found else { throw .auth(privacy ? "INVALID_LOGIN_CREDENTIALS" : "EMAIL_NOT_FOUND") }
        try require(user.disabled != true, "USER_DISABLED")
        try require(
            passwordMatches(password, user: user), privacy ? "INVALID_LOGIN_CREDENTIALS" : "INVALID_PASSWORD")
        var fields: [String: JSONValue?] = [
            "registered": true, "localId": .string(user.localId), "email": .string(canonical),
        ]
        completeSignIn(&user, realm: &realm, provider: Provider.password, call: call, into: &fields)
        return response("VerifyPasswordResponse", fields)
    }

    /// The audience of custom tokens (Identity Toolkit's service name).
    static let customTokenAudience =
        "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"

    /// `accounts:signInWithCustomToken`: an (unverified) custom-token JWT, or the JSON the emulator also takes.
    static func signInWithCustomToken(_ realm: inout Realm, _ call: AuthCall) throws(APIError) -> JSONValue {
        let token = try call.body.requiredString("token", missing: "MISSING_CUSTOM_TOKEN")
        var payload: [String: JSONValue]
        if token.hasPrefix("{") {
            guard let object = (try? JSONValue.parse(token))?.objectValue else {
                throw .auth(
                    "INVALID_CUSTOM_TOKEN : ((Auth Emulator only accepts strict JSON or JWTs as fake custom tokens.))")
            }
            payload = object
        } else {
            let jwt = UnsignedJWT(decoding: token)
            if realm.tenantID != nil {
                try require(jwt?.payload["tenant_id"]?.stringValue == realm.tenantID, "TENANT_ID_MISMATCH")
            }
            guard let jwt else { throw .auth("INVALID_CUSTOM_TOKEN : Invalid assertion format") }
            payload = jwt.payload
            let audience = payload["aud"].map { $0.stringValue ?? $0.serialized() } ?? "undefined"
            try require(
                audience == customTokenAudience,
                "INVALID_CUSTOM_TOKEN : ((Invalid aud (audience): \(audience) Note: Firebase ID Tokens / third-party tokens cannot be used with signInWithCustomToken.))"
            )
        }
        let uid = (payload["uid"] ?? payload["user_id"]).flatMap(\.primitiveString)
        guard let uid, !uid.isEmpty else { throw .auth("MISSING_IDENTIFIER") }
        var extraClaims: [String: JSONValue] = [:]
        if let claims = payload["claims"] {
            guard let object = claims.objectValue else { throw .auth("INVALID_CLAIMS") }
            try validateClaims(object)
            extraClaims = object
        }
        var isNewUser = false
        var user: UserRecord
        if let existing = realm.pool[localId: uid] {
            try require(existing.disabled != true, "USER_DISABLED")
            user = existing
        } else {
            isNewUser = true
            user = UserRecord(localId: uid)
            user.customAuth = true
            user.createdAt = call.nowMillisString
            user.tenantId = realm.tenantID
        }
        user.customAuth = true
        user.lastLoginAt = call.nowMillisString
        var fields: [String: JSONValue?] = ["isNewUser": .bool(isNewUser)]
        let tokens = issueTokens(
            for: &user, realm: &realm, provider: Provider.custom, call: call, extraClaims: extraClaims)
        for (key, value) in tokens { fields[key] = value }
        return response("VerifyCustomTokenResponse", fields)
    }

    /// `securetoken.googleapis.com/v1/token`: exchange a refresh token for a new ID token (snake_case reply).
    static func grantToken(_ realm: inout Realm, _ call: AuthCall) throws(APIError) -> JSONValue {
        let body = call.body
        guard let grantType = try body.string("grantType"), !grantType.isEmpty else {
            throw .auth("MISSING_GRANT_TYPE")
        }
        try require(grantType == "refresh_token", "INVALID_GRANT_TYPE")
        let token = try body.requiredString("refreshToken", missing: "MISSING_REFRESH_TOKEN")
        let record = try Tokens.decodeRefreshToken(token)
        try require(record.projectId == realm.projectID, "INVALID_REFRESH_TOKEN")
        try require(record.tenantId == realm.tenantID, "TENANT_ID_MISMATCH")
        guard var user = realm.pool[localId: record.localId] else { throw .auth("INVALID_REFRESH_TOKEN") }
        try require(user.disabled != true, "USER_DISABLED")
        let secondFactor = record.secondFactor.map { SecondFactor(identifier: $0.identifier, provider: $0.provider) }
        let tokens = issueTokens(
            for: &user, realm: &realm, provider: record.provider, call: call, extraClaims: record.extraClaims,
            secondFactor: secondFactor)
        return [
            "id_token": tokens["idToken"]!, "access_token": tokens["idToken"]!,
            "expires_in": tokens["expiresIn"]!, "refresh_token": tokens["refreshToken"]!,
            "token_type": "Bearer", "user_id": .string(user.localId), "project_id": .string(projectNumber),
        ]
    }

    /// The fake project number the official emulator reports.
    static let projectNumber = "12345"
}
