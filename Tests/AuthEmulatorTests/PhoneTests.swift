import EmulatorCore
import HTTPTypes
import Testing

@Suite struct PhoneTests {
    static let phone = "+15555550100"

    @Test func sendVerificationCodeRecordsACodeForTheListing() async throws {
        try await AuthTestClient().run { session in
            let reply = try await session.call(
                "accounts:sendVerificationCode", ["phoneNumber": .string(Self.phone), "recaptchaToken": "ignored"])
            #expect(reply.status == 200)
            #expect(reply.json.objectValue?.keys.sorted() == ["sessionInfo"])
            let sessionInfo = try #require(reply.json["sessionInfo"]?.stringValue)
            #expect(sessionInfo.count == 226)
            #expect(sessionInfo.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
            let codes = try await session.verificationCodes()
            #expect(codes.count == 1)
            #expect(codes.first?["phoneNumber"] == .string(Self.phone))
            #expect(codes.first?["sessionInfo"] == .string(sessionInfo))
            let code = try #require(codes.first?["code"]?.stringValue)
            #expect(code.count == 6 && code.allSatisfy(\.isNumber))
        }
    }

    @Test(arguments: [[:], ["phoneNumber": "invalid"]] as [JSONValue])
    func sendVerificationCodeRejectsBadNumbers(body: JSONValue) async throws {
        try await AuthTestClient().run { session in
            let reply = try await session.call("accounts:sendVerificationCode", body)
            #expect(reply.status == 400)
            #expect(reply.errorMessage == "INVALID_PHONE_NUMBER : Invalid format.")
        }
    }

    @Test(arguments: ["accounts:sendVerificationCode", "accounts:signInWithPhoneNumber"])
    func tenantsCannotUsePhoneSignIn(path: String) async throws {
        try await AuthTestClient().run { session in
            let reply = try await session.call(path, ["tenantId": "tenant-a", "phoneNumber": .string(Self.phone)])
            #expect(reply.status == 400)
            #expect(reply.errorMessage == "UNSUPPORTED_TENANT_OPERATION")
        }
    }

    @Test func verifiedNumberCreatesAUserThenSignsItIn() async throws {
        try await AuthTestClient().run { session in
            let first = try await session.signInWithPhoneNumber(Self.phone)
            #expect(first.status == 200)
            #expect(first.json["kind"] == nil)
            #expect(first.json["isNewUser"] == true)
            #expect(first.json["phoneNumber"] == .string(Self.phone))
            #expect(first.json["expiresIn"] == "3600")
            #expect(first.json["refreshToken"]?.stringValue != nil)
            let token = claims(of: first.json["idToken"])
            #expect(token["phone_number"] == .string(Self.phone))
            #expect(token["provider_id"] == nil)
            #expect(token["firebase"]?["sign_in_provider"] == "phone")
            #expect(token["firebase"]?["identities"] == ["phone": [.string(Self.phone)]])
            #expect(try await session.verificationCodes().isEmpty, "a used code is consumed")

            let again = try await session.signInWithPhoneNumber(Self.phone)
            #expect(again.json["isNewUser"] == false)
            #expect(again.json["localId"] == first.json["localId"])
        }
    }

    static let missingProofs: [(JSONValue, String)] = [
        (["code": "123456"], "MISSING_SESSION_INFO"),
        (["sessionInfo": "something"], "MISSING_CODE"),
        (["sessionInfo": "totally-invalid", "code": "123456"], "INVALID_SESSION_INFO"),
        (["temporaryProof": "proof"], "MISSING_PHONE_NUMBER"),
        (["temporaryProof": "proof", "phoneNumber": .string(phone)], "INVALID_TEMPORARY_PROOF"),
    ]

    @Test(arguments: missingProofs)
    func signInWithoutAValidProofFails(body: JSONValue, message: String) async throws {
        try await AuthTestClient().run { session in
            let reply = try await session.call("accounts:signInWithPhoneNumber", body)
            #expect(reply.status == 400)
            #expect(reply.errorMessage == message)
        }
    }

    @Test func wrongCodeIsRejectedAndLeavesTheCodeUsable() async throws {
        try await AuthTestClient().run { session in
            let sessionInfo = try await session.sendVerificationCode(Self.phone)
            let code = try await session.code(for: sessionInfo)
            let wrong = try await session.call(
                "accounts:signInWithPhoneNumber", ["sessionInfo": .string(sessionInfo), "code": .string(code + "1")])
            #expect(wrong.status == 400)
            #expect(wrong.errorMessage == "INVALID_CODE")
            let right = try await session.call(
                "accounts:signInWithPhoneNumber", ["sessionInfo": .string(sessionInfo), "code": .string(code)])
            #expect(right.status == 200)
        }
    }

    @Test func idTokenLinksTheNumberToThatUser() async throws {
        try await AuthTestClient().run { session in
            let anonymous = try await session.call("accounts:signUp")
            let idToken = try #require(anonymous.json["idToken"])
            let reply = try await session.signInWithPhoneNumber(Self.phone, extra: ["idToken": idToken])
            #expect(reply.status == 200)
            #expect(reply.json["isNewUser"] == false)
            #expect(reply.json["localId"] == anonymous.json["localId"])
            #expect(claims(of: reply.json["idToken"])["phone_number"] == .string(Self.phone))
        }
    }

    @Test func numberOfAnotherUserYieldsATemporaryProof() async throws {
        try await AuthTestClient().run { session in
            let owner = try await session.signInWithPhoneNumber(Self.phone)
            let idToken = try #require(try await session.call("accounts:signUp").json["idToken"])
            let conflict = try await session.signInWithPhoneNumber(Self.phone, extra: ["idToken": idToken])
            #expect(conflict.status == 200)
            #expect(conflict.json["idToken"] == nil)
            #expect(conflict.json["phoneNumber"] == .string(Self.phone))
            #expect(conflict.json["temporaryProofExpiresIn"] == "3600")
            let proof = try #require(conflict.json["temporaryProof"]?.stringValue)
            #expect(proof.count == 119)

            let retry = try await session.call(
                "accounts:signInWithPhoneNumber",
                ["idToken": idToken, "phoneNumber": .string(Self.phone), "temporaryProof": .string(proof)])
            #expect(retry.status == 400)
            #expect(retry.errorMessage == "PHONE_NUMBER_EXISTS")

            let signIn = try await session.call(
                "accounts:signInWithPhoneNumber",
                ["phoneNumber": .string(Self.phone), "temporaryProof": .string(proof)])
            #expect(signIn.status == 200)
            #expect(signIn.json["localId"] == owner.json["localId"])
            #expect(signIn.json["isNewUser"] == false)
        }
    }

    @Test func disabledUserCannotSignIn() async throws {
        try await AuthTestClient().run { session in
            let created = try await session.call(
                "projects/\(AuthTestClient.projectID)/accounts", ["phoneNumber": .string(Self.phone), "disabled": true],
                admin: true)
            #expect(created.status == 200)
            let reply = try await session.signInWithPhoneNumber(Self.phone)
            #expect(reply.status == 400)
            #expect(reply.errorMessage == "USER_DISABLED")
        }
    }

    static let mfaFirstFactor =
        "UNSUPPORTED_FIRST_FACTOR : A phone number cannot be set as a first factor on an SMS based MFA user."

    @Test func usersWithSecondFactorsCannotUseAPhoneAsFirstFactor() async throws {
        try await AuthTestClient().run { session in
            let created = try await session.call(
                "projects/\(AuthTestClient.projectID)/accounts",
                ["phoneNumber": .string(Self.phone), "mfaInfo": [["phoneInfo": "+15555550199"]]], admin: true)
            #expect(created.status == 200)
            let send = try await session.call("accounts:sendVerificationCode", ["phoneNumber": .string(Self.phone)])
            #expect(send.status == 400)
            #expect(send.errorMessage == Self.mfaFirstFactor)
            #expect(try await session.verificationCodes().isEmpty)

            let signUp = try await session.call(
                "accounts:signUp",
                ["email": "alice@example.com", "password": "notasecret", "mfaInfo": [["phoneInfo": "+15555550199"]]])
            let idToken = try #require(signUp.json["idToken"])
            let link = try await session.signInWithPhoneNumber("+15555550101", extra: ["idToken": idToken])
            #expect(link.status == 400)
            #expect(link.errorMessage == Self.mfaFirstFactor)
        }
    }
}

extension AuthTestClient.Session {
    /// `GET /emulator/v1/projects/{p}/verificationCodes`.
    func verificationCodes() async throws -> [JSONValue] {
        let reply = try await request(.get, "/emulator/v1/projects/\(AuthTestClient.projectID)/verificationCodes")
        return reply.json["verificationCodes"]?.arrayValue ?? []
    }

    /// The pending SMS code of `sessionInfo`.
    func code(for sessionInfo: String) async throws -> String {
        let record = try await verificationCodes().first { $0["sessionInfo"] == .string(sessionInfo) }
        return try #require(record?["code"]?.stringValue)
    }

    /// `accounts:sendVerificationCode`; returns the session info.
    func sendVerificationCode(_ phoneNumber: String) async throws -> String {
        let reply = try await call("accounts:sendVerificationCode", ["phoneNumber": .string(phoneNumber)])
        return try #require(reply.json["sessionInfo"]?.stringValue, "\(reply.json)")
    }

    /// Sends a code to `phoneNumber` and signs in with it, adding `extra` to the sign-in body.
    func signInWithPhoneNumber(_ phoneNumber: String, extra: [String: JSONValue] = [:]) async throws -> Reply {
        let sessionInfo = try await sendVerificationCode(phoneNumber)
        let code = try await code(for: sessionInfo)
        var body: [String: JSONValue] = ["sessionInfo": .string(sessionInfo), "code": .string(code)]
        body.merge(extra) { _, new in new }
        return try await call("accounts:signInWithPhoneNumber", .object(body))
    }
}
