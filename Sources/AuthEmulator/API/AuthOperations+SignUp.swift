import EmulatorCore

extension AuthOperations {
    /// `accounts:signUp` (client: email/password, anonymous, upgrade via `idToken`) and
    /// `projects/{p}/accounts` (admin create with any profile fields).
    static func signUp(_ realm: inout Realm, _ call: AuthCall) throws(APIError) -> JSONValue {
        let body = call.body
        var provider: String?
        var user = UserRecord(localId: "")
        user.lastLoginAt = call.nowMillisString
        let email = try body.string("email")
        let password = try body.string("password")
        let idToken = try body.string("idToken")
        let requestedLocalId = try body.string("localId")
        if call.isAdmin {
            if idToken != nil { try require(requestedLocalId == nil, "UNEXPECTED_PARAMETER : User ID") }
            if let requestedLocalId {
                try require(realm.pool[localId: requestedLocalId] == nil, "DUPLICATE_LOCAL_ID")
            }
            user.displayName = try body.string("displayName")
            user.photoUrl = try body.string("photoUrl")
            user.emailVerified = try body.bool("emailVerified") ?? false
            if let phone = try body.string("phoneNumber"), !phone.isEmpty {
                try require(isValidPhoneNumber(phone), "INVALID_PHONE_NUMBER : Invalid format.")
                try require(realm.pool.user(phoneNumber: phone) == nil, "PHONE_NUMBER_EXISTS")
                user.phoneNumber = phone
            }
            if try body.bool("disabled") == true { user.disabled = true }
        } else {
            try require(requestedLocalId == nil, "UNEXPECTED_PARAMETER : User ID")
            if idToken != nil || password != nil || email != nil {
                user.displayName = try body.string("displayName")
                user.emailVerified = false
                try require(!(email ?? "").isEmpty, "MISSING_EMAIL")
                try require(!(password ?? "").isEmpty, "MISSING_PASSWORD")
                provider = Provider.password
                try require(realm.settings.allowPasswordSignup, "OPERATION_NOT_ALLOWED")
            } else {
                provider = Provider.anonymous
                try require(realm.settings.enableAnonymousUser, "ADMIN_ONLY_OPERATION")
            }
        }
        if let email, !email.isEmpty || provider != nil {
            try require(isValidEmail(email), "INVALID_EMAIL")
            let canonical = canonicalEmail(email)
            try require(realm.pool.user(email: canonical) == nil, "EMAIL_EXISTS")
            user.email = canonical
        }
        if let password, !password.isEmpty {
            try checkPasswordStrength(password)
            setPassword(password, on: &user, now: call.now)
        }
        if let factors = try body.objects("mfaInfo") {
            user.mfaInfo = try mfaEnrollments(from: factors, realm: realm, now: call)
        }
        user.tenantId = realm.tenantID
        if let idToken {
            var existing = try parseIDToken(idToken, realm: realm).user
            existing.merge(from: user)
            user = existing
        } else {
            user.localId = requestedLocalId ?? realm.pool.newLocalId()
            user.createdAt = call.nowMillisString
        }
        realm.pool.save(user)
        var fields: [String: JSONValue?] = [
            "localId": .string(user.localId), "displayName": user.displayName.json, "email": user.email.json,
        ]
        if let provider {
            for (key, value) in issueTokens(for: &user, realm: &realm, provider: provider, call: call) {
                fields[key] = value
            }
        }
        return response("SignupNewUserResponse", fields)
    }

    /// MFA enrollments given by an admin create / update / import; each needs a valid, unique phone.
    static func mfaEnrollments(from factors: [RequestBody], realm: Realm, now call: AuthCall) throws(APIError)
        -> [MFAEnrollment]
    {
        var phones: Set<String> = []
        var ids: Set<String> = []
        var enrollments: [MFAEnrollment] = []
        for factor in factors {
            let phone = try factor.string("phoneInfo")
            try require(phone.map(isValidPhoneNumber) ?? false, "INVALID_MFA_PHONE_NUMBER : Invalid format.")
            let id = try factor.string("mfaEnrollmentId") ?? RandomID.make(length: 28)
            try require(!ids.contains(id), "DUPLICATE_MFA_ENROLLMENT_ID")
            try require(!phones.contains(phone!), "INTERNAL_ERROR : MFA Enrollment Phone Numbers must be unique.")
            phones.insert(phone!)
            ids.insert(id)
            enrollments.append(
                MFAEnrollment(
                    mfaEnrollmentId: id, displayName: try factor.string("displayName"),
                    enrolledAt: try factor.string("enrolledAt") ?? call.now.iso8601WithMilliseconds, phoneInfo: phone))
        }
        return enrollments
    }
}

extension UserRecord {
    /// Copies the profile fields `other` sets onto this user (used when an anonymous user signs up).
    mutating func merge(from other: UserRecord) {
        if let value = other.email { email = value }
        if let value = other.emailVerified { emailVerified = value }
        if let value = other.displayName { displayName = value }
        if let value = other.photoUrl { photoUrl = value }
        if let value = other.phoneNumber { phoneNumber = value }
        if let value = other.passwordHash { passwordHash = value }
        if let value = other.salt { salt = value }
        if let value = other.passwordUpdatedAt { passwordUpdatedAt = value }
        if let value = other.validSince { validSince = value }
        if let value = other.disabled { disabled = value }
        if let value = other.lastLoginAt { lastLoginAt = value }
        if let value = other.mfaInfo { mfaInfo = value }
        if let value = other.tenantId { tenantId = value }
    }
}
