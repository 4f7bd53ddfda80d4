import EmulatorCore
import EmulatorHTTP
import Foundation

extension AuthOperations {
    /// `accounts:signInWithIdp`: signs in (or up, or links) with a fake IdP credential: an `id_token` that is
    /// strict JSON or an unsigned JWT with a `sub`, as the official emulator accepts.
    static func signInWithIdp(_ realm: inout Realm, _ call: AuthCall) throws(APIError) -> JSONValue {
        let body = call.body
        if try body.bool("returnRefreshToken") == true { throw .authNotImplemented("returnRefreshToken") }
        if body.has("pendingIdToken") { throw .authNotImplemented("pendingIdToken") }
        let params = try idpParameters(body)
        guard let providerId = params["providerId"]?.lowercased(), !providerId.isEmpty else {
            let uri = (try? body.string("requestUri")) ?? nil
            throw .auth("INVALID_CREDENTIAL_OR_PROVIDER_ID : Invalid IdP response/credential: \(uri ?? "")")
        }
        let idToken = params["id_token"].flatMap { $0.isEmpty ? nil : $0 }
        let accessToken = params["access_token"].flatMap { $0.isEmpty ? nil : $0 }
        var parsed = try parseIdpClaims(idToken)
        if parsed == nil { parsed = try parseIdpClaims(accessToken) }
        guard let claims = parsed else {
            if let idToken {
                throw .auth(
                    "INVALID_IDP_RESPONSE : Unable to parse id_token: \(idToken) ((Auth Emulator only accepts strict JSON or JWTs as fake id_tokens.))")
            }
            if accessToken != nil {
                let message =
                    providerId == "google.com" || providerId == "apple.com"
                    ? "The Auth Emulator only support sign-in with \(providerId) using id_token, not access_token. Please update your code to use id_token."
                    : "The Auth Emulator does not support \(providerId) sign-in with credentials."
                throw APIError.notImplementedMessage(message)
            }
            throw APIError.notImplementedMessage("The Auth Emulator only supports sign-in with credentials (id_token required).")
        }
        let sub = claims["sub"]!.stringValue!
        var reply = idpResponse(providerId: providerId, claims: claims, idToken: idToken, accessToken: accessToken)
        let email = reply["email"]?.stringValue
        let emailVerified = reply["emailVerified"]?.boolValue ?? false
        let returnCredential = try body.bool("returnIdpCredential") ?? false
        var tokenUser: UserRecord?
        if let token = try body.string("idToken") { tokenUser = try parseIDToken(token, realm: realm).user }
        let providerUser = realm.pool.user(providerId: providerId, rawId: sub)
        let entry = ProviderUserInfo(
            providerId: providerId, rawId: sub, federatedId: sub, email: email,
            displayName: reply["displayName"]?.stringValue, photoUrl: reply["photoUrl"]?.stringValue,
            screenName: reply["screenName"]?.stringValue)
        var user: UserRecord
        var isNewUser = false
        do throws(APIError) {
            if var linking = tokenUser {
                try require(providerUser == nil, "FEDERATED_USER_ID_ALREADY_LINKED")
                if realm.settings.oneAccountPerEmail, let email, let owner = realm.pool.user(email: email) {
                    try require(owner.localId == linking.localId, "EMAIL_EXISTS")
                }
                if realm.settings.oneAccountPerEmail, let email, linking.email == nil {
                    linking.email = email
                    linking.emailVerified = emailVerified
                }
                if let email, emailVerified, linking.email == email { linking.emailVerified = true }
                user = linking
            } else if let providerUser {
                user = providerUser
            } else if realm.settings.oneAccountPerEmail, let email, var owner = realm.pool.user(email: email) {
                guard emailVerified else {
                    reply["needConfirmation"] = true
                    reply["localId"] = .string(owner.localId)
                    let verified = (owner.providerUserInfo ?? []).map(\.providerId).filter {
                        $0 != Provider.password && $0 != Provider.phone
                    }
                    reply["verifiedProvider"] = .array(verified.map(JSONValue.string))
                    return .object(reply)
                }
                if let existing = owner.provider(providerId), existing.rawId != sub { reply["emailRecycled"] = true }
                if owner.emailVerified != true {
                    owner.passwordHash = nil
                    owner.phoneNumber = nil
                    owner.validSince = String(call.now.secondsSince1970)
                }
                owner.displayName = entry.displayName
                owner.photoUrl = entry.photoUrl
                owner.emailVerified = true
                user = owner
            } else {
                isNewUser = true
                user = UserRecord(localId: realm.pool.newLocalId())
                user.createdAt = call.nowMillisString
                user.displayName = entry.displayName
                user.photoUrl = entry.photoUrl
                user.tenantId = realm.tenantID
                if realm.settings.oneAccountPerEmail, let email {
                    user.email = email
                    user.emailVerified = emailVerified
                }
            }
        } catch {
            guard returnCredential else { throw error }
            reply["errorMessage"] = .string(error.message)
            return .object(reply)
        }
        var providers = user.providerUserInfo ?? []
        providers.removeAll { $0.providerId == providerId }
        providers.append(entry)
        user.providerUserInfo = providers
        realm.pool.save(user)
        if isNewUser { reply["isNewUser"] = true }
        reply["localId"] = .string(user.localId)
        if user.email == email { reply["emailVerified"] = user.emailVerified.json }
        if let tenant = realm.tenantID { reply["tenantId"] = .string(tenant) }
        if needsSecondFactor(user, realm: realm) {
            for (key, value) in mfaPending(user, realm: realm, provider: providerId) { reply[key] = value }
            return .object(reply)
        }
        user.lastLoginAt = call.nowMillisString
        try require(user.disabled != true, "USER_DISABLED")
        for (key, value) in issueTokens(for: &user, realm: &realm, provider: providerId, call: call) {
            reply[key] = value
        }
        return .object(reply)
    }

    /// The IdP parameters: `requestUri`'s query, then `postBody` (form), then the URI fragment, later ones winning.
    private static func idpParameters(_ body: RequestBody) throws(APIError) -> [String: String] {
        let requestUri = try body.requiredString("requestUri", missing: "MISSING_REQUEST_URI")
        guard let components = URLComponents(string: requestUri), components.scheme != nil else {
            throw .auth("INVALID_REQUEST_URI")
        }
        var params: [String: String] = [:]
        for item in components.queryItems ?? [] { params[item.name] = item.value ?? "" }
        for pair in FormFields(parsing: try body.string("postBody") ?? "").pairs { params[pair.name] = pair.value }
        for pair in FormFields(parsing: components.fragment ?? "").pairs { params[pair.name] = pair.value }
        return params
    }

    /// Claims of a fake IdP token: strict JSON, or a JWT's payload; must carry a string `sub`.
    private static func parseIdpClaims(_ token: String?) throws(APIError) -> [String: JSONValue]? {
        guard let token, !token.isEmpty else { return nil }
        let claims: [String: JSONValue]
        if token.hasPrefix("{") {
            guard let object = (try? JSONValue.parse(token))?.objectValue else {
                throw .auth(
                    "INVALID_IDP_RESPONSE : Unable to parse id_token: \(token) ((Auth Emulator failed to parse fake id_token as strict JSON.))")
            }
            claims = object
        } else {
            guard let jwt = UnsignedJWT(decoding: token) else { return nil }
            claims = jwt.payload
        }
        guard let sub = claims["sub"], sub != .null, sub != "" else {
            throw .auth(
                "INVALID_IDP_RESPONSE : Invalid Idp Response: id_token missing required fields. ((Missing \"sub\" field. This field is required and must be a unique identifier.))")
        }
        guard sub.stringValue != nil else { throw .auth("INVALID_IDP_RESPONSE : ((The \"sub\" field must be a string.))") }
        return claims
    }

    /// The `VerifyAssertionResponse` fields that come from the IdP's claims.
    private static func idpResponse(
        providerId: String, claims: [String: JSONValue], idToken: String?, accessToken: String?
    ) -> [String: JSONValue] {
        let sub = claims["sub"]?.stringValue ?? ""
        let email = claims["email"]?.stringValue?.lowercased()
        let verified = isTruthy(claims["email_verified"])
        var reply: [String: JSONValue] = [
            "kind": "identitytoolkit#VerifyAssertionResponse", "context": "", "providerId": .string(providerId),
            "emailVerified": .bool(verified),
            "oauthAccessToken": .string(accessToken ?? "FirebaseAuthEmulatorFakeAccessToken_\(providerId)"),
        ]
        if let name = claims["name"]?.stringValue {
            reply["displayName"] = .string(name)
            reply["fullName"] = .string(name)
        }
        if let screenName = claims["screen_name"]?.stringValue { reply["screenName"] = .string(screenName) }
        if let email { reply["email"] = .string(email) }
        if let picture = claims["picture"]?.stringValue { reply["photoUrl"] = .string(picture) }
        if let idToken { reply["oauthIdToken"] = .string(idToken) }
        if providerId == "google.com" {
            reply["federatedId"] = .string("https://accounts.google.com/\(sub)")
            if let given = claims["given_name"] { reply["firstName"] = given }
            if let family = claims["family_name"] { reply["lastName"] = family }
            var scopes = "openid https://www.googleapis.com/auth/userinfo.profile"
            if email != nil { scopes += " https://www.googleapis.com/auth/userinfo.email" }
            var info: [String: JSONValue] = [
                "granted_scopes": .string(scopes), "id": .string(sub), "verified_email": .bool(verified),
                "locale": "en",
            ]
            for key in ["name", "given_name", "family_name", "picture"] { info[key] = claims[key] }
            if let email { info["email"] = .string(email) }
            reply["rawUserInfo"] = .string(JSONValue.object(info).serialized())
        } else {
            reply["federatedId"] = .string(sub)
            reply["rawUserInfo"] = .string(JSONValue.object(claims).serialized())
        }
        return reply
    }

    /// JavaScript truthiness of a JSON value.
    private static func isTruthy(_ value: JSONValue?) -> Bool {
        switch value {
        case nil, .null?: return false
        case .bool(let flag)?: return flag
        case .int(let number)?: return number != 0
        case .double(let number)?: return number != 0 && !number.isNaN
        case .string(let text)?: return !text.isEmpty
        default: return true
        }
    }
}
