import EmulatorCore

extension AuthOperations {
    /// `accounts:lookup`: the caller's own record (client, by `idToken`) or records by localId, email, phone
    /// or federated id (admin). `users` is omitted when nothing matches.
    static func lookup(_ realm: inout Realm, _ call: AuthCall) throws(APIError) -> JSONValue {
        let body = call.body
        var found: [UserRecord] = []
        func add(_ user: UserRecord?) {
            if let user, !found.contains(where: { $0.localId == user.localId }) { found.append(user) }
        }
        if call.isAdmin {
            if body.has("initialEmail") { throw .authNotImplemented("Lookup by initialEmail") }
            for id in try body.strings("localId") ?? [] { add(realm.pool[localId: id]) }
            for email in try body.strings("email") ?? [] { add(realm.pool.user(email: canonicalEmail(email))) }
            for phone in try body.strings("phoneNumber") ?? [] { add(realm.pool.user(phoneNumber: phone)) }
            for federated in try body.objects("federatedUserId") ?? [] {
                guard let provider = try federated.string("providerId"), let rawId = try federated.string("rawId") else {
                    continue
                }
                add(realm.pool.user(providerId: provider, rawId: rawId))
            }
        } else {
            let token = try body.requiredString("idToken", missing: "MISSING_ID_TOKEN")
            add(try parseIDToken(token, realm: realm).user)
        }
        return response("GetAccountInfoResponse", ["users": found.isEmpty ? nil : .array(found.map(\.json))])
    }

    /// `accounts:delete`: the caller's own account (client, `idToken`) or any by `localId` (admin).
    static func deleteAccount(_ realm: inout Realm, _ call: AuthCall) throws(APIError) -> JSONValue {
        let user: UserRecord
        if call.isAdmin {
            let localId = try call.body.requiredString("localId", missing: "MISSING_LOCAL_ID")
            guard let existing = realm.pool[localId: localId] else { throw .auth("USER_NOT_FOUND") }
            user = existing
        } else {
            let token = try call.body.requiredString("idToken", missing: "MISSING_ID_TOKEN")
            user = try parseIDToken(token, realm: realm).user
        }
        realm.pool.delete(localId: user.localId)
        return response("DeleteAccountResponse", [:])
    }

    /// `accounts:update` (setAccountInfo): profile, email, password, claims, disabling, linking, and the
    /// email-action codes (`oobCode`) of verify-email, change-email and recover-email.
    static func update(_ realm: inout Realm, _ call: AuthCall) throws(APIError) -> JSONValue {
        let body = call.body
        if body.fields["provider"] != nil { throw .authNotImplemented("provider") }
        if body.fields["upgradeToFederatedLogin"] != nil { throw .authNotImplemented("upgradeToFederatedLogin") }
        if call.isAdmin {
            try require(body.has("localId"), "MISSING_LOCAL_ID")
        } else {
            try require(body.has("idToken") || body.has("oobCode"), "INVALID_REQ_TYPE : Unsupported request parameters.")
            try require(!body.has("customAttributes"), "INSUFFICIENT_PERMISSION")
        }
        if let claims = try body.string("customAttributes"), !claims.isEmpty {
            try validateCustomAttributes(claims)
        }
        let deleteAttributes = try body.strings("deleteAttribute") ?? []
        for attribute in ["PROVIDER", "RAW_USER_INFO"] where deleteAttributes.contains(attribute) {
            throw .authNotImplemented("deleteAttribute: \(attribute)")
        }
        var user: UserRecord
        var signInProvider: String?
        var newEmailEcho: String?
        var emailChanged = false
        var revoke = false
        if let oobCode = try body.string("oobCode"), !oobCode.isEmpty {
            (user, signInProvider, newEmailEcho) = try applyActionCode(oobCode, realm: &realm)
        } else {
            if let token = try body.string("idToken") {
                let parsed = try parseIDToken(token, realm: realm)
                user = parsed.user
                signInProvider = parsed.signInProvider
                try require(!body.has("disableUser"), "OPERATION_NOT_ALLOWED")
            } else {
                let localId = try body.requiredString("localId", missing: "MISSING_LOCAL_ID")
                guard let existing = realm.pool[localId: localId] else { throw .auth("USER_NOT_FOUND") }
                user = existing
            }
            if let email = try body.string("email"), !email.isEmpty {
                try require(isValidEmail(email), "INVALID_EMAIL")
                let canonical = canonicalEmail(email)
                newEmailEcho = canonical
                if canonical != user.email {
                    try require(realm.pool.user(email: canonical) == nil, "EMAIL_EXISTS")
                    if signInProvider != Provider.anonymous, let old = user.email, user.initialEmail == nil {
                        user.initialEmail = old
                    }
                    user.email = canonical
                    user.emailVerified = false
                    emailChanged = true
                }
            }
            if let password = try body.string("password"), !password.isEmpty {
                try checkPasswordStrength(password)
                setPassword(password, on: &user, now: call.now)
                signInProvider = Provider.password
            }
            if body.has("password") || body.fields["validSince"] != nil || emailChanged {
                user.validSince = String(call.now.secondsSince1970)
                revoke = true
            }
            if let mfa = try body.object("mfa") {
                let enrollments = try mfa.objects("enrollments") ?? []
                user.mfaInfo = enrollments.isEmpty ? nil : try mfaEnrollments(from: enrollments, realm: realm, now: call)
            }
            if call.isAdmin { try applyAdminFields(body, to: &user, realm: realm) }
            if let name = try body.string("displayName") { user.displayName = name }
            if let photo = try body.string("photoUrl") { user.photoUrl = photo }
            for attribute in deleteAttributes {
                switch attribute {
                case "DISPLAY_NAME": user.displayName = nil
                case "PHOTO_URL": user.photoUrl = nil
                case "PASSWORD": user.passwordHash = nil; user.salt = nil
                case "EMAIL": user.email = nil; user.emailVerified = nil; user.emailLinkSignin = nil
                default: break
                }
            }
        }
        let deleteProviders = try body.strings("deleteProvider") ?? []
        if deleteProviders.contains(Provider.password) {
            user.email = nil
            user.emailVerified = nil
            user.emailLinkSignin = nil
            user.passwordHash = nil
            user.salt = nil
        }
        if deleteProviders.contains(Provider.phone) { user.phoneNumber = nil }
        user.providerUserInfo?.removeAll { deleteProviders.contains($0.providerId) }
        if let link = try body.object("linkProviderUserInfo") {
            let providerId = try link.requiredString("providerId", missing: "MISSING_PROVIDER_ID")
            let rawId = try link.requiredString("rawId", missing: "MISSING_RAW_ID")
            var info = ProviderUserInfo(providerId: providerId, rawId: rawId)
            info.federatedId = try link.string("federatedId")
            info.email = try link.string("email")
            info.displayName = try link.string("displayName")
            info.photoUrl = try link.string("photoUrl")
            info.phoneNumber = try link.string("phoneNumber")
            info.screenName = try link.string("screenName")
            var providers = user.providerUserInfo ?? []
            providers.removeAll { $0.providerId == providerId }
            providers.append(info)
            user.providerUserInfo = providers
        }
        realm.pool.save(user)
        user = realm.pool[localId: user.localId] ?? user
        if signInProvider != Provider.anonymous, emailChanged, let initial = user.initialEmail {
            createOOB(email: initial, newEmail: nil, type: "RECOVER_EMAIL", realm: &realm, call: call, continueURL: String?.none)
        }
        var fields: [String: JSONValue?] = [
            "localId": .string(user.localId), "emailVerified": user.emailVerified.json,
            "email": user.email.json, "displayName": user.displayName.json, "photoUrl": user.photoUrl.json,
            "passwordHash": user.passwordHash.json, "newEmail": newEmailEcho.json,
            "providerUserInfo": user.providerUserInfo.map { JSONValue(encodable: $0) },
        ]
        if revoke, let signInProvider {
            for (key, value) in issueTokens(for: &user, realm: &realm, provider: signInProvider, call: call) {
                fields[key] = value
            }
        }
        return response("SetAccountInfoResponse", fields)
    }

    /// The fields only an admin may set through `accounts:update`.
    private static func applyAdminFields(_ body: RequestBody, to user: inout UserRecord, realm: Realm) throws(APIError) {
        if let disabled = try body.bool("disableUser") { user.disabled = disabled }
        if let phone = try body.string("phoneNumber"), !phone.isEmpty, phone != user.phoneNumber {
            try require(isValidPhoneNumber(phone), "INVALID_PHONE_NUMBER : Invalid format.")
            try require(realm.pool.user(phoneNumber: phone) == nil, "PHONE_NUMBER_EXISTS")
            user.phoneNumber = phone
        }
        if let verified = try body.bool("emailVerified") { user.emailVerified = verified }
        if let claims = try body.string("customAttributes") { user.customAttributes = claims }
        if let createdAt = try body.int64("createdAt") { user.createdAt = String(createdAt) }
        if let lastLoginAt = try body.int64("lastLoginAt") { user.lastLoginAt = String(lastLoginAt) }
        if let validSince = try body.int64("validSince") { user.validSince = String(validSince) }
    }

    /// Applies an email action code given to `accounts:update`; returns the user, sign-in provider and newEmail.
    private static func applyActionCode(_ code: String, realm: inout Realm) throws(APIError)
        -> (UserRecord, String?, String?)
    {
        guard let oob = realm.pool.oobCodes[code] else { throw .auth("INVALID_OOB_CODE") }
        switch oob.requestType {
        case "VERIFY_EMAIL":
            realm.pool.removeOOB(code)
            guard var user = realm.pool.user(email: oob.email) else { throw .auth("INVALID_OOB_CODE") }
            user.emailVerified = true
            return (user, Provider.password, nil)
        case "VERIFY_AND_CHANGE_EMAIL":
            realm.pool.removeOOB(code)
            guard var user = realm.pool.user(email: oob.email), let newEmail = oob.newEmail else {
                throw .auth("INVALID_OOB_CODE")
            }
            try require(realm.pool.user(email: newEmail) == nil, "EMAIL_EXISTS")
            if newEmail != user.email {
                user.email = newEmail
                user.emailVerified = true
            }
            return (user, nil, newEmail)
        case "RECOVER_EMAIL":
            realm.pool.removeOOB(code)
            guard var user = realm.pool.user(initialEmail: oob.email) else { throw .auth("INVALID_OOB_CODE") }
            try require(realm.pool.user(email: oob.email) == nil, "EMAIL_EXISTS")
            if oob.email != user.email {
                user.email = oob.email
                user.emailVerified = true
            }
            return (user, nil, nil)
        default:
            throw APIError.notImplementedMessage(oob.requestType)
        }
    }
}
