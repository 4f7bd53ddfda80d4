import EmulatorCore
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

@Suite struct SignInTests {
    @Test func passwordSignInAndErrors() async throws {
        try await AuthTestClient().run { session in
            _ = try await session.signUp(email: "bob@example.com")
            let ok = try await session.call(
                "accounts:signInWithPassword", ["email": "BOB@example.com", "password": "password1"])
            #expect(ok.status == 200)
            #expect(ok.json["registered"] == true)
            #expect(ok.json["email"] == "bob@example.com")
            #expect(claims(of: ok.json["idToken"])["firebase"]?["sign_in_provider"] == "password")
            let wrong = try await session.call(
                "accounts:signInWithPassword", ["email": "bob@example.com", "password": "nope123"])
            #expect(wrong.errorMessage == "INVALID_PASSWORD")
            let unknown = try await session.call(
                "accounts:signInWithPassword", ["email": "who@example.com", "password": "nope123"])
            #expect(unknown.errorMessage == "EMAIL_NOT_FOUND")
        }
    }

    @Test func improvedEmailPrivacyHidesWhichPartWasWrong() async throws {
        try await AuthTestClient().run { session in
            _ = try await session.request(
                .patch, "/emulator/v1/projects/\(AuthTestClient.projectID)/config",
                body: ["emailPrivacyConfig": ["enableImprovedEmailPrivacy": true]])
            let reply = try await session.call(
                "accounts:signInWithPassword", ["email": "who@example.com", "password": "nope123"])
            #expect(reply.errorMessage == "INVALID_LOGIN_CREDENTIALS")
        }
    }

    @Test func customTokenJWTAndJSON() async throws {
        try await AuthTestClient().run { session in
            let jwt = UnsignedJWT(payload: [
                "aud": .string(
                    "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"),
                "uid": "custom-1", "claims": ["role": "admin"],
            ]).encoded
            let reply = try await session.call("accounts:signInWithCustomToken", ["token": .string(jwt)])
            #expect(reply.status == 200)
            #expect(reply.json["isNewUser"] == true)
            let token = claims(of: reply.json["idToken"])
            #expect(token["user_id"] == "custom-1")
            #expect(token["role"] == "admin")
            #expect(token["firebase"]?["sign_in_provider"] == "custom")
            let again = try await session.call("accounts:signInWithCustomToken", ["token": #"{"uid":"custom-1"}"#])
            #expect(again.json["isNewUser"] == false)
            let badAudience = try await session.call(
                "accounts:signInWithCustomToken", ["token": .string(UnsignedJWT(payload: ["uid": "x"]).encoded)])
            #expect(badAudience.errorMessage?.hasPrefix("INVALID_CUSTOM_TOKEN : ((Invalid aud (audience)") == true)
            let reserved = try await session.call(
                "accounts:signInWithCustomToken", ["token": #"{"uid":"y","claims":{"sub":"z"}}"#])
            #expect(reserved.errorMessage == "FORBIDDEN_CLAIM : sub")
            let garbage = try await session.call("accounts:signInWithCustomToken", ["token": "abc"])
            #expect(garbage.errorMessage == "INVALID_CUSTOM_TOKEN : Invalid assertion format")
        }
    }

    @Test func refreshTokenGrantFormEncoded() async throws {
        try await AuthTestClient().run { session in
            let user = try await session.signUp(email: "r@example.com")
            let refresh = try #require(user["refreshToken"]?.stringValue)
            let encoded = refresh.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let reply = try await session.client.execute(
                uri: "/securetoken.googleapis.com/v1/token?key=fake",
                method: .post,
                headers: [.contentType: "application/x-www-form-urlencoded"],
                body: .init(string: "grant_type=refresh_token&refresh_token=\(encoded)")
            ) { response in
                (Int(response.status.code), try JSONValue.parse(String(buffer: response.body)))
            }
            #expect(reply.0 == 200)
            #expect(reply.1["token_type"] == "Bearer")
            #expect(reply.1["user_id"] == user["localId"])
            #expect(reply.1["expires_in"] == "3600")
            #expect(reply.1["id_token"] == reply.1["access_token"])
            let missing = try await session.request(
                .post, "/securetoken.googleapis.com/v1/token?key=fake", body: ["refreshToken": .string(refresh)])
            #expect(missing.errorMessage == "MISSING_GRANT_TYPE")
            let invalid = try await session.request(
                .post, "/securetoken.googleapis.com/v1/token?key=fake",
                body: ["grantType": "refresh_token", "refreshToken": "garbage"])
            #expect(invalid.errorMessage == "INVALID_REFRESH_TOKEN")
        }
    }

    @Test func legacyRelyingPartyPathsAreRewritten() async throws {
        try await AuthTestClient().run { session in
            let reply = try await session.request(
                .post, "/www.googleapis.com/identitytoolkit/v3/relyingparty/signupNewUser?key=k", body: [:])
            #expect(reply.status == 200)
            #expect(reply.json["kind"] == "identitytoolkit#SignupNewUserResponse")
        }
    }
}
