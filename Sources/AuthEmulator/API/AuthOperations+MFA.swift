import EmulatorCore
import Foundation

extension AuthOperations {
    /// `v2/accounts/mfaEnrollment:start`. SMS (`phoneEnrollmentInfo`) records a code for the phone and answers
    /// `phoneSessionInfo`; TOTP (`totpEnrollmentInfo: {}`, production's wire format, absent from the official
    /// emulator) answers `totpSessionInfo` with a new shared secret.
    static func mfaEnrollmentStart(_ realm: inout Realm, _ call: AuthCall) throws(APIError) -> JSONValue {
        let body = call.body
        let factor = try FactorInfo(body, phone: "phoneEnrollmentInfo", totp: "totpEnrollmentInfo")
        try factor.requireEnabled(in: realm)
        let user = try enrollingUser(body, realm: realm).user
        try require(
            user.emailVerified == true,
            "UNVERIFIED_EMAIL : Need to verify email first before enrolling second factors.")
        guard case .phone(let info) = factor else { return startTOTPEnrollment(for: user, realm: realm, call: call) }
        guard let info else { throw .auth("INVALID_ARGUMENT : ((Missing phoneEnrollmentInfo.))") }
        // As production: a missing number is INVALID_PHONE_NUMBER too.
        let phoneNumber = try info.string("phoneNumber") ?? ""
        try require(isValidPhoneNumber(phoneNumber), "INVALID_PHONE_NUMBER : Invalid format.")
        try requireNotEnrolled(phoneNumber, user)
        let verification = createVerificationCode(for: phoneNumber, in: &realm.pool)
        return ["phoneSessionInfo": ["sessionInfo": .string(verification.sessionInfo)]]
    }

    /// `v2/accounts/mfaEnrollment:finalize`: checks the SMS code (`phoneVerificationInfo`) or the TOTP code
    /// (`totpVerificationInfo`), adds the factor and answers tokens carrying it as the second factor.
    static func mfaEnrollmentFinalize(_ realm: inout Realm, _ call: AuthCall) throws(APIError) -> JSONValue {
        let body = call.body
        let factor = try FactorInfo(body, phone: "phoneVerificationInfo", totp: "totpVerificationInfo")
        try factor.requireEnabled(in: realm)
        let parsed = try enrollingUser(body, realm: realm)
        var user = parsed.user
        var enrollment = MFAEnrollment(
            mfaEnrollmentId: newEnrollmentID(for: user), displayName: try body.string("displayName"),
            enrolledAt: call.now.iso8601WithMilliseconds)
        switch factor {
        case .phone(let info):
            guard let info else { throw .auth("INVALID_ARGUMENT : ((Missing phoneVerificationInfo.))") }
            let phoneNumber = try verifiedPhoneNumber(info, in: &realm.pool)
            try requireNotEnrolled(phoneNumber, user)
            enrollment.phoneInfo = phoneNumber
        case .totp(let info):
            let code = try info.requiredString("verificationCode", missing: "MISSING_CODE")
            let sessionInfo = try info.requiredString("sessionInfo", missing: "MISSING_SESSION_INFO")
            let secret = try TOTPEnrollmentSession.secret(from: sessionInfo, for: user, realm: realm)
            try require(
                secret.accepts(code, at: call.now, adjacentIntervals: realm.settings.mfa.adjacentIntervals),
                "INVALID_CODE")
            enrollment.totpInfo = MFAEnrollment.TOTPInfo()
            enrollment.totpSecret = secret.base32Key
        }
        user.mfaInfo = (user.mfaInfo ?? []) + [enrollment]
        let tokens = issueTokens(
            for: &user, realm: &realm, provider: parsed.signInProvider, call: call,
            secondFactor: SecondFactor(identifier: enrollment.mfaEnrollmentId, provider: enrollment.factorID))
        return idAndRefreshToken(tokens)
    }

    /// `v2/accounts/mfaEnrollment:withdraw`: removes a factor of either kind; the new tokens carry no second
    /// factor. Allowed whatever the MFA config.
    static func mfaEnrollmentWithdraw(_ realm: inout Realm, _ call: AuthCall) throws(APIError) -> JSONValue {
        let idToken = try call.body.requiredString("idToken", missing: "MISSING_ID_TOKEN")
        let parsed = try parseIDToken(idToken, realm: realm)
        var user = parsed.user
        guard let factors = user.mfaInfo else { throw .auth("MFA_ENROLLMENT_NOT_FOUND") }
        let enrollmentID = try call.body.string("mfaEnrollmentId")
        let remaining = factors.filter { $0.mfaEnrollmentId != enrollmentID }
        try require(remaining.count < factors.count, "MFA_ENROLLMENT_NOT_FOUND")
        user.mfaInfo = remaining
        return .object(issueTokens(for: &user, realm: &realm, provider: parsed.signInProvider, call: call))
    }

    /// `v2/accounts/mfaSignIn:start`: records an SMS code for the enrolled phone and answers
    /// `phoneResponseInfo`. TOTP sign-in has no start step.
    static func mfaSignInStart(_ realm: inout Realm, _ call: AuthCall) throws(APIError) -> JSONValue {
        let body = call.body
        try FactorInfo.phone(nil).requireEnabled(in: realm)
        let credential = try body.requiredString(
            "mfaPendingCredential",
            missing: "MISSING_MFA_PENDING_CREDENTIAL : Request does not have MFA pending credential.")
        let enrollmentID = try body.requiredString(
            "mfaEnrollmentId", missing: "MISSING_MFA_ENROLLMENT_ID : No second factor identifier is provided.")
        let user = try pendingSignIn(credential, realm: realm).user
        guard let enrollment = user.mfaInfo?.first(where: { $0.mfaEnrollmentId == enrollmentID }) else {
            throw .auth("MFA_ENROLLMENT_NOT_FOUND")
        }
        guard let phoneNumber = enrollment.phoneInfo else {
            throw .auth("INVALID_ARGUMENT : MFA provider not supported!")
        }
        let verification = createVerificationCode(for: phoneNumber, in: &realm.pool)
        return ["phoneResponseInfo": ["sessionInfo": .string(verification.sessionInfo)]]
    }

    /// `v2/accounts/mfaSignIn:finalize`: completes a sign-in held at `mfaPendingCredential` with an SMS code
    /// (the factor is found by the verified phone) or a TOTP code for `mfaEnrollmentId`.
    static func mfaSignInFinalize(_ realm: inout Realm, _ call: AuthCall) throws(APIError) -> JSONValue {
        let body = call.body
        let factor = try FactorInfo(body, phone: "phoneVerificationInfo", totp: "totpVerificationInfo")
        try factor.requireEnabled(in: realm)
        // Not MISSING_MFA_PENDING_CREDENTIAL as in mfaSignIn:start: production is inconsistent here.
        let credential = try body.requiredString(
            "mfaPendingCredential", missing: "MISSING_CREDENTIAL : Please set MFA Pending Credential.")
        let pending: (user: UserRecord, signInProvider: String)
        let enrollment: MFAEnrollment?
        switch factor {
        case .phone(let info):
            guard let info else { throw .auth("INVALID_ARGUMENT : MFA provider not supported!") }
            let phoneNumber = try verifiedPhoneNumber(info, in: &realm.pool)
            pending = try pendingSignIn(credential, realm: realm)
            // iOS finalizes with the masked number, which production accepts too.
            enrollment = pending.user.mfaInfo?.first { factor in
                guard let phone = factor.phoneInfo else { return false }
                return phone == phoneNumber || MFAEnrollment.obfuscate(phone) == phoneNumber
            }
        case .totp(let info):
            let enrollmentID = try body.requiredString(
                "mfaEnrollmentId", missing: "MISSING_MFA_ENROLLMENT_ID : No second factor identifier is provided.")
            let code = try info.requiredString("verificationCode", missing: "MISSING_CODE")
            pending = try pendingSignIn(credential, realm: realm)
            guard let found = pending.user.mfaInfo?.first(where: { $0.mfaEnrollmentId == enrollmentID }),
                let secret = found.totpSecret.flatMap(TOTP.init(base32:))
            else { throw .auth("MFA_ENROLLMENT_NOT_FOUND") }
            try require(
                secret.accepts(code, at: call.now, adjacentIntervals: realm.settings.mfa.adjacentIntervals),
                "INVALID_CODE")
            enrollment = found
        }
        // The sign-in time is written even when the checks below fail, as the official emulator does.
        var user = pending.user
        user.lastLoginAt = call.nowMillisString
        realm.pool.save(user)
        guard let enrollment else { throw .auth("MFA_ENROLLMENT_NOT_FOUND") }
        try require(user.disabled != true, "USER_DISABLED")
        let tokens = issueTokens(
            for: &user, realm: &realm, provider: pending.signInProvider, call: call,
            secondFactor: SecondFactor(identifier: enrollment.mfaEnrollmentId, provider: enrollment.factorID))
        return idAndRefreshToken(tokens)
    }

    // MARK: Shared steps

    /// Which kind of factor a request is about: TOTP only when its `totp` member is present and the phone
    /// member is not; otherwise SMS (with its info object, if any).
    private enum FactorInfo {
        case phone(RequestBody?)
        case totp(RequestBody)

        init(_ body: RequestBody, phone: String, totp: String) throws(APIError) {
            let phoneInfo = try body.object(phone)
            if phoneInfo == nil, let totpInfo = try body.object(totp) {
                self = .totp(totpInfo)
            } else {
                self = .phone(phoneInfo)
            }
        }

        /// MFA must be ENABLED or MANDATORY with this kind of factor on.
        func requireEnabled(in realm: Realm) throws(APIError) {
            let mfa = realm.settings.mfa
            switch self {
            case .phone:
                try require(mfa.smsEnabled, "OPERATION_NOT_ALLOWED : SMS based MFA not enabled.")
            case .totp:
                try require(mfa.isOn && mfa.totpEnabled, "OPERATION_NOT_ALLOWED : TOTP based MFA not enabled.")
            }
        }
    }

    /// First factors that cannot carry a second one.
    private static let mfaIneligibleProviders: Set<String> = [
        Provider.anonymous, Provider.phone, Provider.custom, "gc.apple.com",
    ]

    /// The user of the request's `idToken`, who must have signed in with an MFA-eligible first factor.
    private static func enrollingUser(_ body: RequestBody, realm: Realm) throws(APIError) -> ParsedIDToken {
        let idToken = try body.requiredString("idToken", missing: "MISSING_ID_TOKEN")
        let parsed = try parseIDToken(idToken, realm: realm)
        try require(
            !mfaIneligibleProviders.contains(parsed.signInProvider),
            "UNSUPPORTED_FIRST_FACTOR : MFA is not available for the given first factor.")
        return parsed
    }

    private static func requireNotEnrolled(_ phoneNumber: String, _ user: UserRecord) throws(APIError) {
        try require(
            !(user.mfaInfo ?? []).contains { $0.phoneInfo == phoneNumber },
            "SECOND_FACTOR_EXISTS : Phone number already enrolled as second factor for this account.")
    }

    /// The phone number proved by `phoneVerificationInfo {sessionInfo, code}` (the code is consumed).
    private static func verifiedPhoneNumber(_ info: RequestBody, in pool: inout UserPool) throws(APIError) -> String {
        if let proof = try info.string("androidVerificationProof"), !proof.isEmpty {
            throw APIError.notImplementedMessage("androidVerificationProof is unsupported!")
        }
        let code = try info.requiredString("code", missing: "MISSING_CODE")
        let sessionInfo = try info.requiredString("sessionInfo", missing: "MISSING_SESSION_INFO")
        return try verifyPhoneNumber(sessionInfo: sessionInfo, code: code, in: &pool)
    }

    /// The user and first-factor provider a pending credential holds.
    private static func pendingSignIn(_ credential: String, realm: Realm) throws(APIError)
        -> (user: UserRecord, signInProvider: String)
    {
        let record = try Tokens.decodePendingCredential(credential, realm: realm, field: "phoneVerificationInfo")
        guard let user = realm.pool[localId: record.localId] else {
            throw .auth("((User in pendingCredentialPayload does not exist.))")
        }
        return (user, record.signInProvider)
    }

    /// A 28-character enrollment id no factor of `user` has.
    private static func newEnrollmentID(for user: UserRecord) -> String {
        let taken = Set((user.mfaInfo ?? []).map(\.mfaEnrollmentId))
        while true {
            let id = RandomID.make(length: 28)
            if !taken.contains(id) { return id }
        }
    }

    /// MFA finalize answers only these two (no `expiresIn`).
    private static func idAndRefreshToken(_ tokens: [String: JSONValue]) -> JSONValue {
        .object(tokens.filter { $0.key == "idToken" || $0.key == "refreshToken" })
    }

    // MARK: TOTP enrollment

    /// How long production gives a client to finalize a TOTP enrollment (reported, not enforced: the emulator's
    /// codes and sessions never expire).
    private static let totpFinalizeWindow: TimeInterval = 5 * 60

    private static func startTOTPEnrollment(for user: UserRecord, realm: Realm, call: AuthCall) -> JSONValue {
        let secret = TOTP.random()
        let session = TOTPEnrollmentSession(
            localId: user.localId, sharedSecretKey: secret.base32Key, projectId: realm.projectID,
            tenantId: realm.tenantID)
        return [
            "totpSessionInfo": [
                "sharedSecretKey": .string(secret.base32Key),
                "verificationCodeLength": .int(Int64(secret.digits)),
                "hashingAlgorithm": "SHA1",
                "periodSec": .int(secret.periodSeconds),
                "sessionInfo": .string(session.encoded),
                "finalizeEnrollmentTime": .string(
                    call.now.addingTimeInterval(totpFinalizeWindow).iso8601WithMilliseconds),
            ]
        ]
    }

    /// A TOTP enrollment's `sessionInfo`: the secret and whom it was issued to, as base64 JSON like the
    /// emulator's other opaque tokens, so nothing is stored until the enrollment is finalized.
    private struct TOTPEnrollmentSession: Codable {
        var marker = "DO NOT MODIFY"
        var localId: String
        var sharedSecretKey: String
        var projectId: String
        var tenantId: String?

        enum CodingKeys: String, CodingKey {
            case marker = "_AuthEmulatorTotpSessionInfo"
            case localId, sharedSecretKey, projectId, tenantId
        }

        var encoded: String { Tokens.opaque(self) }

        /// The secret of `sessionInfo`, which must have been issued to `user` in `realm`.
        static func secret(from sessionInfo: String, for user: UserRecord, realm: Realm) throws(APIError) -> TOTP {
            guard let session = Tokens.decodeOpaque(TOTPEnrollmentSession.self, from: sessionInfo),
                session.localId == user.localId, session.projectId == realm.projectID,
                session.tenantId == realm.tenantID,
                let secret = TOTP(base32: session.sharedSecretKey)
            else { throw .auth("INVALID_SESSION_INFO") }
            return secret
        }
    }
}
