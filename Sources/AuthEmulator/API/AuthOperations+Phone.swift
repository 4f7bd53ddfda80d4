import EmulatorCore

extension AuthOperations {
    /// `accounts:sendVerificationCode`: "sends" an SMS code; the emulator only records it, for the
    /// `verificationCodes` listing. `recaptchaToken`, `iosReceipt`, `safetyNetToken` and the like are ignored.
    static func sendVerificationCode(_ realm: inout Realm, _ call: AuthCall) throws(APIError) -> JSONValue {
        try require(realm.tenantID == nil, "UNSUPPORTED_TENANT_OPERATION")
        // Production answers INVALID_PHONE_NUMBER, not MISSING_PHONE_NUMBER, when the number is absent.
        let phoneNumber = try call.body.string("phoneNumber") ?? ""
        try require(isValidPhoneNumber(phoneNumber), "INVALID_PHONE_NUMBER : Invalid format.")
        try requirePhoneFirstFactorAllowed(realm.pool.user(phoneNumber: phoneNumber))
        let verification = createVerificationCode(for: phoneNumber, in: &realm.pool)
        return ["sessionInfo": .string(verification.sessionInfo)]
    }

    /// `accounts:signInWithPhoneNumber`: signs in (or signs up) with a verified phone number, proved by
    /// `sessionInfo` + `code` or by a `temporaryProof`; with `idToken` it links the number to that user.
    static func signInWithPhoneNumber(_ realm: inout Realm, _ call: AuthCall) throws(APIError) -> JSONValue {
        let body = call.body
        try require(realm.tenantID == nil, "UNSUPPORTED_TENANT_OPERATION")
        let temporaryProof = try body.string("temporaryProof") ?? ""
        let phoneNumber: String
        if !temporaryProof.isEmpty {
            phoneNumber = try body.requiredString("phoneNumber", missing: "MISSING_PHONE_NUMBER")
            try require(realm.pool.temporaryProofs[temporaryProof] == phoneNumber, "INVALID_TEMPORARY_PROOF")
        } else {
            let sessionInfo = try body.requiredString("sessionInfo", missing: "MISSING_SESSION_INFO")
            let code = try body.requiredString("code", missing: "MISSING_CODE")
            phoneNumber = try verifyPhoneNumber(sessionInfo: sessionInfo, code: code, in: &realm.pool)
        }
        let owner = realm.pool.user(phoneNumber: phoneNumber)
        var linked: UserRecord?
        if let idToken = try body.string("idToken"), !idToken.isEmpty {
            linked = try parseIDToken(idToken, realm: realm).user
        }
        if let owner, let linked, owner.localId != linked.localId {
            try require(temporaryProof.isEmpty, "PHONE_NUMBER_EXISTS")
            // The number is verified but belongs to someone else: hand back a proof so the client can retry
            // (e.g. sign in as that user) without another SMS.
            let proof = RandomID.make(length: 119, from: RandomID.base64URL)
            realm.pool.temporaryProofs[proof] = phoneNumber
            return [
                "phoneNumber": .string(phoneNumber), "temporaryProof": .string(proof),
                "temporaryProofExpiresIn": "3600",
            ]
        }
        if let existing = linked ?? owner {
            try require(existing.disabled != true, "USER_DISABLED")
            try requirePhoneFirstFactorAllowed(existing)
        }
        let (found, isNewUser) = existingOrNewUser(linked ?? owner, realm: realm, call: call)
        var user = found
        user.phoneNumber = phoneNumber
        user.lastLoginAt = call.nowMillisString
        var fields: [String: JSONValue] = [
            "isNewUser": .bool(isNewUser), "phoneNumber": .string(phoneNumber), "localId": .string(user.localId),
        ]
        fields.merge(issueTokens(for: &user, realm: &realm, provider: Provider.phone, call: call)) { _, new in new }
        return .object(fields)
    }

    /// A phone number cannot be a first factor for a user who has enrolled second factors.
    private static func requirePhoneFirstFactorAllowed(_ user: UserRecord?) throws(APIError) {
        try require(
            (user?.mfaInfo ?? []).isEmpty,
            "UNSUPPORTED_FIRST_FACTOR : A phone number cannot be set as a first factor on an SMS based MFA user.")
    }

    /// Records a new SMS code for `phoneNumber`: 6 digits, keyed by a 226-character base64url `sessionInfo`.
    /// Codes never expire; they are listed by `GET /emulator/v1/projects/{p}/verificationCodes`.
    static func createVerificationCode(for phoneNumber: String, in pool: inout UserPool) -> PhoneVerification {
        let verification = PhoneVerification(
            code: RandomID.make(length: 6, from: RandomID.digits), phoneNumber: phoneNumber,
            sessionInfo: RandomID.make(length: 226, from: RandomID.base64URL))
        pool.addVerification(verification)
        return verification
    }

    /// Checks `code` against the SMS code of `sessionInfo` and consumes it; a wrong code leaves it usable.
    /// Returns the verified phone number.
    static func verifyPhoneNumber(sessionInfo: String, code: String, in pool: inout UserPool) throws(APIError)
        -> String
    {
        guard let verification = pool.verificationCodes[sessionInfo] else { throw .auth("INVALID_SESSION_INFO") }
        try require(verification.code == code, "INVALID_CODE")
        pool.removeVerification(sessionInfo)
        return verification.phoneNumber
    }
}
