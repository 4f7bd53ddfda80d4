import EmulatorCore
import HTTPTypes
import Testing

@Suite struct SignUpTests {
    @Test func anonymousSignUpIssuesAnonymousToken() async throws {
        try await AuthTestClient().run { session in
            let reply = try await session.call("accounts:signUp")
            #expect(reply.status == 200)
            #expect(reply.json["kind"] == "identitytoolkit#SignupNewUserResponse")
            let token = claims(of: reply.json["idToken"])
            #expect(token["provider_id"] == "anonymous")
            #expect(token["firebase"]?["sign_in_provider"] == "anonymous")
            #expect(token["aud"] == .string(AuthTestClient.projectID))
            #expect(reply.json["expiresIn"] == "3600")
        }
    }

    @Test func emailSignUpCanonicalizesAndRejectsDuplicates() async throws {
        try await AuthTestClient().run { session in
            let first = try await session.signUp(email: "Alice@Example.com")
            #expect(first["email"] == "alice@example.com")
            let again = try await session.call(
                "accounts:signUp", ["email": "alice@example.com", "password": "password1"])
            #expect(again.status == 400)
            #expect(again.errorMessage == "EMAIL_EXISTS")
            #expect(again.json["error"]?["errors"]?.arrayValue?.first?["reason"] == "invalid")
        }
    }

    static let invalidSignUps: [(JSONValue, String)] = [
        (["email": "a@b.c", "password": "12345"], "WEAK_PASSWORD : Password should be at least 6 characters"),
        (["password": "password1"], "MISSING_EMAIL"),
        (["email": "a@b.c"], "MISSING_PASSWORD"),
        (["email": "not-an-email", "password": "password1"], "INVALID_EMAIL"),
        (["email": "a\u{0}b@example.com", "password": "password1"], "INVALID_EMAIL"),
        (["email": "a b@example.com", "password": "password1"], "INVALID_EMAIL"),
        (["email": .string(String(repeating: "x", count: 250) + "@example.com"), "password": "password1"], "INVALID_EMAIL"),
        (["localId": "abc"], "UNEXPECTED_PARAMETER : User ID"),
    ]

    @Test(arguments: invalidSignUps)
    func signUpErrors(body: JSONValue, message: String) async throws {
        try await AuthTestClient().run { session in
            let reply = try await session.call("accounts:signUp", body)
            #expect(reply.status == 400)
            #expect(reply.errorMessage == message)
        }
    }

    @Test func wrongTypeIsInvalidArgument() async throws {
        try await AuthTestClient().run { session in
            let reply = try await session.call("accounts:signUp", ["email": 42])
            #expect(reply.status == 400)
            #expect(reply.json["error"]?["status"] == "INVALID_ARGUMENT")
        }
    }

    @Test func missingAPIKeyIsForbidden() async throws {
        try await AuthTestClient().run { session in
            let reply = try await session.request(.post, "/identitytoolkit.googleapis.com/v1/accounts:signUp", body: [:])
            #expect(reply.status == 403)
            #expect(reply.errorMessage == "The request is missing a valid API key.")
        }
    }
}
