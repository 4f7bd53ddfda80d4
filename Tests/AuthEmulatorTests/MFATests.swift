@testable import AuthEmulator
import EmulatorCore
import EmulatorHTTP
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite struct MFATests {
    static let phone = "+15555550100"
    static let v2 = "/identitytoolkit.googleapis.com/v2/accounts/"

    // MARK: SMS

    @Test func smsEnrollmentThenSignIn() async throws {
        try await AuthTestClient().run { session in
            let user = try await session.verifiedUser()
            let start = try await session.call(
                Self.v2 + "mfaEnrollment:start",
                ["idToken": user.idToken, "phoneEnrollmentInfo": ["phoneNumber": .string(Self.phone)]])
            #expect(start.status == 200)
            let sessionInfo = try #require(start.json["phoneSessionInfo"]?["sessionInfo"]?.stringValue)
            let codes = try await session.verificationCodes()
            #expect(codes.count == 1)
            #expect(codes.first?["phoneNumber"] == .string(Self.phone))
            let code = try await session.code(for: sessionInfo)

            let finalize = try await session.call(
                Self.v2 + "mfaEnrollment:finalize",
                [
                    "idToken": user.idToken, "displayName": "Work phone",
                    "phoneVerificationInfo": ["sessionInfo": .string(sessionInfo), "code": .string(code)],
                ])
            #expect(finalize.status == 200)
            #expect(finalize.json.objectValue?.keys.sorted() == ["idToken", "refreshToken"])
            let enrolled = claims(of: finalize.json["idToken"])["firebase"]
            #expect(enrolled?["sign_in_second_factor"] == "phone")
            #expect(enrolled?["sign_in_provider"] == "password")

            let pending = try await session.call(
                "accounts:signInWithPassword", ["email": .string(user.email), "password": "password1"])
            #expect(pending.json["idToken"] == nil)
            let factor = try #require(pending.json["mfaInfo"]?.arrayValue?.first)
            #expect(factor["phoneInfo"] == "+*******0100")
            #expect(factor["displayName"] == "Work phone")
            #expect(enrolled?["second_factor_identifier"] == factor["mfaEnrollmentId"])
            let credential = try #require(pending.json["mfaPendingCredential"])

            let signInStart = try await session.call(
                Self.v2 + "mfaSignIn:start",
                ["mfaPendingCredential": credential, "mfaEnrollmentId": try #require(factor["mfaEnrollmentId"])])
            #expect(signInStart.status == 200)
            let signInSession = try #require(signInStart.json["phoneResponseInfo"]?["sessionInfo"]?.stringValue)
            let signInCode = try await session.code(for: signInSession)
            let signIn = try await session.call(
                Self.v2 + "mfaSignIn:finalize",
                [
                    "mfaPendingCredential": credential,
                    "phoneVerificationInfo": ["sessionInfo": .string(signInSession), "code": .string(signInCode)],
                ])
            #expect(signIn.status == 200)
            #expect(signIn.json.objectValue?.keys.sorted() == ["idToken", "refreshToken"])
            let signedIn = claims(of: signIn.json["idToken"])["firebase"]
            #expect(signedIn?["sign_in_second_factor"] == "phone")
            #expect(signedIn?["second_factor_identifier"] == factor["mfaEnrollmentId"])
            #expect(signedIn?["sign_in_provider"] == "password")

            let refreshed = try await session.request(
                .post, "/securetoken.googleapis.com/v1/token?key=fake",
                body: ["grant_type": "refresh_token", "refresh_token": try #require(signIn.json["refreshToken"])])
            #expect(claims(of: refreshed.json["id_token"])["firebase"]?["sign_in_second_factor"] == "phone")
        }
    }

    @Test func enrollmentStartErrors() async throws {
        try await AuthTestClient().run { session in
            let user = try await session.verifiedUser()
            let cases: [(JSONValue, String)] = [
                ([:], "MISSING_ID_TOKEN"),
                (["idToken": "not-a-jwt"], "INVALID_ID_TOKEN"),
                (["idToken": user.idToken], "INVALID_ARGUMENT : ((Missing phoneEnrollmentInfo.))"),
                (
                    ["idToken": user.idToken, "phoneEnrollmentInfo": ["phoneNumber": "notaphonenumber"]],
                    "INVALID_PHONE_NUMBER : Invalid format."
                ),
                (["idToken": user.idToken, "phoneEnrollmentInfo": [:]], "INVALID_PHONE_NUMBER : Invalid format."),
            ]
            for (body, message) in cases {
                let reply = try await session.call(Self.v2 + "mfaEnrollment:start", body)
                #expect(reply.status == 400)
                #expect(reply.errorMessage == message, "\(body)")
            }
        }
    }

    @Test func enrollmentNeedsAVerifiedEmailAndAnEligibleFirstFactor() async throws {
        try await AuthTestClient().run { session in
            let unverified = try await session.signUp(email: "bob@example.com")
            let info: JSONValue = ["phoneNumber": .string(Self.phone)]
            let reply = try await session.call(
                Self.v2 + "mfaEnrollment:start", ["idToken": unverified["idToken"]!, "phoneEnrollmentInfo": info])
            #expect(
                reply.errorMessage == "UNVERIFIED_EMAIL : Need to verify email first before enrolling second factors.")

            let anonymous = try await session.call("accounts:signUp")
            let ineligible = try await session.call(
                Self.v2 + "mfaEnrollment:start", ["idToken": anonymous.json["idToken"]!, "phoneEnrollmentInfo": info])
            #expect(
                ineligible.errorMessage
                    == "UNSUPPORTED_FIRST_FACTOR : MFA is not available for the given first factor.")
        }
    }

    @Test func phoneCanOnlyBeEnrolledOnce() async throws {
        try await AuthTestClient().run { session in
            let user = try await session.verifiedUser()
            _ = try await session.enrollPhone(Self.phone, idToken: user.idToken)
            let reply = try await session.call(
                Self.v2 + "mfaEnrollment:start",
                ["idToken": user.idToken, "phoneEnrollmentInfo": ["phoneNumber": .string(Self.phone)]])
            #expect(reply.status == 400)
            #expect(
                reply.errorMessage
                    == "SECOND_FACTOR_EXISTS : Phone number already enrolled as second factor for this account.")
        }
    }

    @Test func enrollmentFinalizeErrors() async throws {
        try await AuthTestClient().run { session in
            let user = try await session.verifiedUser()
            let start = try await session.call(
                Self.v2 + "mfaEnrollment:start",
                ["idToken": user.idToken, "phoneEnrollmentInfo": ["phoneNumber": .string(Self.phone)]])
            let sessionInfo = try #require(start.json["phoneSessionInfo"]?["sessionInfo"])
            let cases: [(JSONValue?, String)] = [
                (nil, "INVALID_ARGUMENT : ((Missing phoneVerificationInfo.))"),
                (["sessionInfo": sessionInfo], "MISSING_CODE"),
                (["code": "123456"], "MISSING_SESSION_INFO"),
                (["sessionInfo": "nope", "code": "123456"], "INVALID_SESSION_INFO"),
                (["sessionInfo": sessionInfo, "code": "1234567"], "INVALID_CODE"),
            ]
            for (info, message) in cases {
                var body: [String: JSONValue] = ["idToken": user.idToken]
                body["phoneVerificationInfo"] = info
                let reply = try await session.call(Self.v2 + "mfaEnrollment:finalize", .object(body))
                #expect(reply.status == 400)
                #expect(reply.errorMessage == message, "\(body)")
            }
            let android = try await session.call(
                Self.v2 + "mfaEnrollment:finalize",
                ["idToken": user.idToken, "phoneVerificationInfo": ["androidVerificationProof": "proof"]])
            #expect(android.status == 501)
            #expect(android.errorMessage == "androidVerificationProof is unsupported!")
        }
    }

    @Test func withdrawRemovesTheFactorAndItsClaims() async throws {
        try await AuthTestClient().run { session in
            let user = try await session.verifiedUser()
            let enrolled = try await session.enrollPhone(Self.phone, idToken: user.idToken)
            let enrollmentID = try #require(claims(of: enrolled["idToken"])["firebase"]?["second_factor_identifier"])

            let missing = try await session.call(Self.v2 + "mfaEnrollment:withdraw", ["mfaEnrollmentId": enrollmentID])
            #expect(missing.errorMessage == "MISSING_ID_TOKEN")
            let unknown = try await session.call(
                Self.v2 + "mfaEnrollment:withdraw", ["idToken": enrolled["idToken"]!, "mfaEnrollmentId": "nope"])
            #expect(unknown.errorMessage == "MFA_ENROLLMENT_NOT_FOUND")

            let reply = try await session.call(
                Self.v2 + "mfaEnrollment:withdraw", ["idToken": enrolled["idToken"]!, "mfaEnrollmentId": enrollmentID])
            #expect(reply.status == 200)
            #expect(reply.json["expiresIn"] == "3600")
            let firebase = claims(of: reply.json["idToken"])["firebase"]
            #expect(firebase?["sign_in_second_factor"] == nil)
            #expect(firebase?["second_factor_identifier"] == nil)

            let signIn = try await session.call(
                "accounts:signInWithPassword", ["email": .string(user.email), "password": "password1"])
            #expect(signIn.json["idToken"] != nil)
            #expect(signIn.json["mfaPendingCredential"] == nil)

            let again = try await session.call(
                Self.v2 + "mfaEnrollment:withdraw",
                ["idToken": reply.json["idToken"]!, "mfaEnrollmentId": enrollmentID])
            #expect(again.errorMessage == "MFA_ENROLLMENT_NOT_FOUND")
        }
    }

    @Test func signInStartErrors() async throws {
        try await AuthTestClient().run { session in
            let user = try await session.verifiedUser()
            _ = try await session.enrollPhone(Self.phone, idToken: user.idToken)
            let credential = try await session.pendingCredential(user)
            let cases: [(JSONValue, String)] = [
                (
                    ["mfaEnrollmentId": "x"],
                    "MISSING_MFA_PENDING_CREDENTIAL : Request does not have MFA pending credential."
                ),
                (
                    ["mfaPendingCredential": credential],
                    "MISSING_MFA_ENROLLMENT_ID : No second factor identifier is provided."
                ),
                (["mfaPendingCredential": credential, "mfaEnrollmentId": "nope"], "MFA_ENROLLMENT_NOT_FOUND"),
                (
                    ["mfaPendingCredential": "garbage", "mfaEnrollmentId": "x"],
                    "((Invalid phoneVerificationInfo.mfaPendingCredential.))"
                ),
            ]
            for (body, message) in cases {
                let reply = try await session.call(Self.v2 + "mfaSignIn:start", body)
                #expect(reply.status == 400)
                #expect(reply.errorMessage == message, "\(body)")
            }
        }
    }

    @Test func signInFinalizeErrors() async throws {
        try await AuthTestClient().run { session in
            let user = try await session.verifiedUser()
            _ = try await session.enrollPhone(Self.phone, idToken: user.idToken)
            let credential = try await session.pendingCredential(user)
            let cases: [(JSONValue, String)] = [
                ([:], "MISSING_CREDENTIAL : Please set MFA Pending Credential."),
                (["mfaPendingCredential": credential], "INVALID_ARGUMENT : MFA provider not supported!"),
                (["mfaPendingCredential": credential, "phoneVerificationInfo": ["code": "1"]], "MISSING_SESSION_INFO"),
                (
                    ["mfaPendingCredential": credential, "phoneVerificationInfo": ["sessionInfo": "x", "code": "1"]],
                    "INVALID_SESSION_INFO"
                ),
            ]
            for (body, message) in cases {
                let reply = try await session.call(Self.v2 + "mfaSignIn:finalize", body)
                #expect(reply.status == 400)
                #expect(reply.errorMessage == message, "\(body)")
            }
            // A verified phone that is not one of the user's factors.
            let sessionInfo = try await session.sendVerificationCode("+15555550177")
            let code = try await session.code(for: sessionInfo)
            let other = try await session.call(
                Self.v2 + "mfaSignIn:finalize",
                [
                    "mfaPendingCredential": credential,
                    "phoneVerificationInfo": ["sessionInfo": .string(sessionInfo), "code": .string(code)],
                ])
            #expect(other.errorMessage == "MFA_ENROLLMENT_NOT_FOUND")
        }
    }

    // MARK: TOTP

    @Test func totpEnrollmentThenSignIn() async throws {
        let clock = FixedClock(date: Date(timeIntervalSince1970: 1_700_000_000))
        try await run(clock: clock) { session in
            let user = try await session.verifiedUser()
            let start = try await session.call(
                Self.v2 + "mfaEnrollment:start", ["idToken": user.idToken, "totpEnrollmentInfo": [:]])
            #expect(start.status == 200)
            let info = try #require(start.json["totpSessionInfo"])
            #expect(info["verificationCodeLength"] == 6)
            #expect(info["hashingAlgorithm"] == "SHA1")
            #expect(info["periodSec"] == 30)
            #expect(info["finalizeEnrollmentTime"] == "2023-11-14T22:18:20.000Z")
            let key = try #require(info["sharedSecretKey"]?.stringValue)
            #expect(key.count == 32)
            #expect(key.allSatisfy { "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".contains($0) })
            let sessionInfo = try #require(info["sessionInfo"])
            #expect(try await session.verificationCodes().isEmpty, "TOTP sends no SMS")

            let secret = try #require(TOTP(base32: key))
            let tooLate = secret.code(at: clock.date.addingTimeInterval(6 * 30))
            let cases: [(JSONValue, String)] = [
                (["sessionInfo": sessionInfo], "MISSING_CODE"),
                (["verificationCode": "123456"], "MISSING_SESSION_INFO"),
                (["sessionInfo": "garbage", "verificationCode": "123456"], "INVALID_SESSION_INFO"),
                (["sessionInfo": sessionInfo, "verificationCode": .string(tooLate)], "INVALID_CODE"),
            ]
            for (verification, message) in cases {
                let reply = try await session.call(
                    Self.v2 + "mfaEnrollment:finalize", ["idToken": user.idToken, "totpVerificationInfo": verification])
                #expect(reply.status == 400)
                #expect(reply.errorMessage == message, "\(verification)")
            }

            let code = secret.code(at: clock.date.addingTimeInterval(-5 * 30))
            let finalize = try await session.call(
                Self.v2 + "mfaEnrollment:finalize",
                [
                    "idToken": user.idToken, "displayName": "Authenticator",
                    "totpVerificationInfo": ["sessionInfo": sessionInfo, "verificationCode": .string(code)],
                ])
            #expect(finalize.status == 200)
            #expect(finalize.json.objectValue?.keys.sorted() == ["idToken", "refreshToken"])
            #expect(claims(of: finalize.json["idToken"])["firebase"]?["sign_in_second_factor"] == "totp")

            let credential = try await session.pendingCredential(user)
            let pending = try await session.call(
                "accounts:signInWithPassword", ["email": .string(user.email), "password": "password1"])
            let factor = try #require(pending.json["mfaInfo"]?.arrayValue?.first)
            #expect(factor["totpInfo"] == [:])
            #expect(factor["phoneInfo"] == nil)
            #expect(factor["displayName"] == "Authenticator")
            let enrollmentID = try #require(factor["mfaEnrollmentId"])

            let smsStart = try await session.call(
                Self.v2 + "mfaSignIn:start", ["mfaPendingCredential": credential, "mfaEnrollmentId": enrollmentID])
            #expect(smsStart.errorMessage == "INVALID_ARGUMENT : MFA provider not supported!")

            let signInCases: [(JSONValue, String)] = [
                (
                    ["mfaPendingCredential": credential, "totpVerificationInfo": ["verificationCode": "123456"]],
                    "MISSING_MFA_ENROLLMENT_ID : No second factor identifier is provided."
                ),
                (
                    ["mfaPendingCredential": credential, "mfaEnrollmentId": enrollmentID, "totpVerificationInfo": [:]],
                    "MISSING_CODE"
                ),
                (
                    [
                        "mfaPendingCredential": credential, "mfaEnrollmentId": "nope",
                        "totpVerificationInfo": ["verificationCode": "123456"],
                    ],
                    "MFA_ENROLLMENT_NOT_FOUND"
                ),
                (
                    [
                        "mfaPendingCredential": credential, "mfaEnrollmentId": enrollmentID,
                        "totpVerificationInfo": ["verificationCode": .string(tooLate)],
                    ],
                    "INVALID_CODE"
                ),
            ]
            for (body, message) in signInCases {
                let reply = try await session.call(Self.v2 + "mfaSignIn:finalize", body)
                #expect(reply.status == 400)
                #expect(reply.errorMessage == message, "\(body)")
            }

            let signIn = try await session.call(
                Self.v2 + "mfaSignIn:finalize",
                [
                    "mfaPendingCredential": credential, "mfaEnrollmentId": enrollmentID,
                    "totpVerificationInfo": ["verificationCode": .string(secret.code(at: clock.date))],
                ])
            #expect(signIn.status == 200)
            let firebase = claims(of: signIn.json["idToken"])["firebase"]
            #expect(firebase?["sign_in_second_factor"] == "totp")
            #expect(firebase?["second_factor_identifier"] == enrollmentID)

            let withdraw = try await session.call(
                Self.v2 + "mfaEnrollment:withdraw",
                ["idToken": signIn.json["idToken"]!, "mfaEnrollmentId": enrollmentID])
            #expect(withdraw.status == 200)
        }
    }

    @Test func totpSessionBelongsToItsUser() async throws {
        try await AuthTestClient().run { session in
            let alice = try await session.verifiedUser(email: "alice@example.com")
            let bob = try await session.verifiedUser(email: "bob@example.com")
            let start = try await session.call(
                Self.v2 + "mfaEnrollment:start", ["idToken": alice.idToken, "totpEnrollmentInfo": [:]])
            let info = try #require(start.json["totpSessionInfo"])
            let secret = try #require(TOTP(base32: info["sharedSecretKey"]?.stringValue ?? ""))
            let reply = try await session.call(
                Self.v2 + "mfaEnrollment:finalize",
                [
                    "idToken": bob.idToken,
                    "totpVerificationInfo": [
                        "sessionInfo": info["sessionInfo"]!, "verificationCode": .string(secret.code(at: Date())),
                    ],
                ])
            #expect(reply.errorMessage == "INVALID_SESSION_INFO")
        }
    }

    // MARK: Config

    @Test func disabledFactorsAreNotAllowed() throws {
        let sms = "OPERATION_NOT_ALLOWED : SMS based MFA not enabled."
        let totp = "OPERATION_NOT_ALLOWED : TOTP based MFA not enabled."
        let operations: [(AuthRoute.RealmOperation, JSONValue, String)] = [
            (AuthOperations.mfaEnrollmentStart, [:], sms),
            (AuthOperations.mfaEnrollmentStart, ["totpEnrollmentInfo": [:]], totp),
            (AuthOperations.mfaEnrollmentFinalize, [:], sms),
            (AuthOperations.mfaEnrollmentFinalize, ["totpVerificationInfo": [:]], totp),
            (AuthOperations.mfaSignInStart, [:], sms),
            (AuthOperations.mfaSignInFinalize, [:], sms),
            (AuthOperations.mfaSignInFinalize, ["totpVerificationInfo": [:]], totp),
        ]
        let smsOnly = MFAConfig(
            state: "ENABLED", enabledProviders: ["PHONE_SMS"], totpEnabled: false, adjacentIntervals: 5)
        let totpOnly = MFAConfig(state: "MANDATORY", enabledProviders: [], totpEnabled: true, adjacentIntervals: 5)
        for (operation, body, message) in operations {
            for config in [MFAConfig.disabled, message == sms ? totpOnly : smsOnly] {
                var realm = Realm(projectID: "p", tenantID: "t", settings: RealmSettings(), pool: UserPool())
                realm.settings.mfa = config
                #expect(throws: APIError.auth(message)) { try operation(&realm, Self.call(body)) }
            }
        }
        var realm = Realm(projectID: "p", settings: RealmSettings(), pool: UserPool())
        realm.settings.mfa = .disabled
        #expect(throws: APIError.auth("MISSING_ID_TOKEN")) {
            try AuthOperations.mfaEnrollmentWithdraw(&realm, Self.call([:]))
        }
    }

    static func call(_ body: JSONValue) -> AuthCall {
        AuthCall(
            body: .init(body.objectValue ?? [:]), query: FormFields(parsing: ""), isAdmin: false,
            projectID: "p", tenantID: nil, parameters: [:], now: Date(), origin: "http://127.0.0.1")
    }

    /// Runs `body` against an emulator whose clock is `clock`.
    private func run(clock: some EmulatorClock, _ body: @Sendable (AuthTestClient.Session) async throws -> Void)
        async throws
    {
        let emulator = try AuthEmulator(projectID: AuthTestClient.projectID, port: 0, clock: clock)
        let app = Application(responder: emulator.responder)
        try await app.test(.router) { client in try await body(AuthTestClient.Session(client: client)) }
    }
}

/// RFC 6238 / RFC 4648 vectors for the generator behind TOTP second factors.
@Suite struct TOTPTests {
    @Test func rfc6238SHA1Vectors() {
        var totp = TOTP(key: Array("12345678901234567890".utf8))
        totp.digits = 8
        let vectors: [(TimeInterval, String)] = [
            (59, "94287082"), (1_111_111_109, "07081804"), (1_111_111_111, "14050471"), (1_234_567_890, "89005924"),
            (2_000_000_000, "69279037"), (20_000_000_000, "65353130"),
        ]
        for (seconds, code) in vectors {
            #expect(totp.code(at: Date(timeIntervalSince1970: seconds)) == code)
        }
    }

    @Test func acceptsOnlyCodesInsideTheWindow() {
        let totp = TOTP.random()
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(totp.accepts(totp.code(at: now), at: now, adjacentIntervals: 0))
        #expect(totp.accepts(totp.code(at: now.addingTimeInterval(60)), at: now, adjacentIntervals: 2))
        #expect(!totp.accepts(totp.code(at: now.addingTimeInterval(90)), at: now, adjacentIntervals: 2))
        #expect(!totp.accepts("12345", at: now, adjacentIntervals: 2))
        #expect(!totp.accepts(totp.code(at: now) + "0", at: now, adjacentIntervals: 2))
    }

    @Test func base32RoundTrips() {
        let vectors = [("", ""), ("f", "MY"), ("fo", "MZXQ"), ("foo", "MZXW6"), ("foob", "MZXW6YQ"),
            ("fooba", "MZXW6YTB"), ("foobar", "MZXW6YTBOI")]
        for (plain, encoded) in vectors {
            #expect(TOTP.Base32.encode(Array(plain.utf8)) == encoded)
            #expect(TOTP.Base32.decode(encoded + "======") == Array(plain.utf8))
            #expect(TOTP.Base32.decode(encoded.lowercased()) == Array(plain.utf8))
        }
        #expect(TOTP.Base32.decode("MZ1") == nil)
        #expect(TOTP.random().base32Key.count == 32)
    }
}

/// A clock stopped at `date`.
struct FixedClock: EmulatorClock {
    var date: Date
    func now() -> Date { date }
}

/// A password user with a verified email, signed in.
struct VerifiedUser {
    var email: String
    var idToken: JSONValue
}

extension AuthTestClient.Session {
    /// Creates (as admin) a user with a verified email and password `password1`, then signs in with it.
    func verifiedUser(email: String = "alice@example.com") async throws -> VerifiedUser {
        let created = try await call(
            "projects/\(AuthTestClient.projectID)/accounts",
            ["email": .string(email), "password": "password1", "emailVerified": true], admin: true)
        #expect(created.status == 200, "\(created.json)")
        let signIn = try await call("accounts:signInWithPassword", ["email": .string(email), "password": "password1"])
        return VerifiedUser(email: email, idToken: try #require(signIn.json["idToken"], "\(signIn.json)"))
    }

    /// Enrolls `phoneNumber` as an SMS factor; returns the finalize reply's fields.
    func enrollPhone(_ phoneNumber: String, idToken: JSONValue) async throws -> [String: JSONValue] {
        let start = try await call(
            MFATests.v2 + "mfaEnrollment:start",
            ["idToken": idToken, "phoneEnrollmentInfo": ["phoneNumber": .string(phoneNumber)]])
        let sessionInfo = try #require(start.json["phoneSessionInfo"]?["sessionInfo"]?.stringValue, "\(start.json)")
        let code = try await code(for: sessionInfo)
        let finalize = try await call(
            MFATests.v2 + "mfaEnrollment:finalize",
            ["idToken": idToken, "phoneVerificationInfo": ["sessionInfo": .string(sessionInfo), "code": .string(code)]])
        #expect(finalize.status == 200, "\(finalize.json)")
        return finalize.json.objectValue ?? [:]
    }

    /// The pending credential a password sign-in of `user` stops at.
    fileprivate func pendingCredential(_ user: VerifiedUser) async throws -> JSONValue {
        let reply = try await call(
            "accounts:signInWithPassword", ["email": .string(user.email), "password": "password1"])
        return try #require(reply.json["mfaPendingCredential"], "\(reply.json)")
    }
}
