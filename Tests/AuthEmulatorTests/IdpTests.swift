import EmulatorCore
import Foundation
import Testing

@Suite struct IdpTests {
    func idp(_ claims: String, provider: String = "google.com") -> JSONValue {
        [
            "requestUri": "http://localhost", "returnSecureToken": true,
            "postBody": .string("id_token=\(claims.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&providerId=\(provider)"),
        ]
    }

    @Test func googleSignUpThenSignIn() async throws {
        try await AuthTestClient().run { session in
            let body = idp(#"{"sub":"123","email":"G@example.com","email_verified":true,"name":"Gee"}"#)
            let first = try await session.call("accounts:signInWithIdp", body)
            #expect(first.status == 200)
            #expect(first.json["isNewUser"] == true)
            #expect(first.json["federatedId"] == "https://accounts.google.com/123")
            #expect(first.json["email"] == "g@example.com")
            #expect(first.json["oauthAccessToken"] == "FirebaseAuthEmulatorFakeAccessToken_google.com")
            let token = claims(of: first.json["idToken"])
            #expect(token["firebase"]?["sign_in_provider"] == "google.com")
            #expect(token["firebase"]?["identities"]?["google.com"] == ["123"])
            let second = try await session.call("accounts:signInWithIdp", body)
            #expect(second.json["isNewUser"] == nil)
            #expect(second.json["localId"] == first.json["localId"])
        }
    }

    @Test func unverifiedEmailNeedsConfirmation() async throws {
        try await AuthTestClient().run { session in
            _ = try await session.signUp(email: "conf@example.com")
            let reply = try await session.call(
                "accounts:signInWithIdp", idp(#"{"sub":"9","email":"conf@example.com"}"#, provider: "facebook.com"))
            #expect(reply.json["needConfirmation"] == true)
            #expect(reply.json["idToken"] == nil)
        }
    }

    @Test func badCredentials() async throws {
        try await AuthTestClient().run { session in
            let noSub = try await session.call("accounts:signInWithIdp", idp(#"{"email":"a@b.c"}"#))
            #expect(noSub.errorMessage?.hasPrefix("INVALID_IDP_RESPONSE : Invalid Idp Response: id_token missing required fields.") == true)
            let noUri = try await session.call("accounts:signInWithIdp", ["postBody": "id_token=x"])
            #expect(noUri.errorMessage == "MISSING_REQUEST_URI")
        }
    }
}
