import EmulatorCore
import Foundation
import HTTPTypes
import Testing

@Suite struct EmailActionTests {
    func codes(_ session: AuthTestClient.Session) async throws -> [JSONValue] {
        let reply = try await session.request(.get, "/emulator/v1/projects/\(AuthTestClient.projectID)/oobCodes")
        return reply.json["oobCodes"]?.arrayValue ?? []
    }

    @Test func passwordResetThroughListedCode() async throws {
        try await AuthTestClient().run { session in
            _ = try await session.signUp(email: "reset@example.com")
            let sent = try await session.call(
                "accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "reset@example.com"])
            #expect(sent.json == ["kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": "reset@example.com"])
            let record = try #require(try await codes(session).last)
            #expect(record["requestType"] == "PASSWORD_RESET")
            let link = try #require(record["oobLink"]?.stringValue)
            #expect(link.contains("/emulator/action?mode=resetPassword&lang=en&oobCode="))
            let code = record["oobCode"]!
            let inspect = try await session.call("accounts:resetPassword", ["oobCode": code])
            #expect(inspect.json["requestType"] == "PASSWORD_RESET")
            let reset = try await session.call("accounts:resetPassword", ["oobCode": code, "newPassword": "brandnew1"])
            #expect(reset.json["email"] == "reset@example.com")
            let used = try await session.call("accounts:resetPassword", ["oobCode": code, "newPassword": "brandnew1"])
            #expect(used.errorMessage == "INVALID_OOB_CODE")
            let signIn = try await session.call(
                "accounts:signInWithPassword", ["email": "reset@example.com", "password": "brandnew1"])
            #expect(signIn.status == 200)
            let unknown = try await session.call(
                "accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "none@example.com"])
            #expect(unknown.errorMessage == "EMAIL_NOT_FOUND")
            let noType = try await session.call("accounts:sendOobCode", ["email": "none@example.com"])
            #expect(noType.errorMessage == "MISSING_REQ_TYPE")
        }
    }

    @Test func verifyEmailAndActionPage() async throws {
        try await AuthTestClient().run { session in
            let user = try await session.signUp(email: "verify@example.com")
            _ = try await session.call("accounts:sendOobCode", ["requestType": "VERIFY_EMAIL", "idToken": user["idToken"]!])
            let code = try #require(try await codes(session).last?["oobCode"]?.stringValue)
            let page = try await session.request(.get, "/emulator/action?mode=verifyEmail&oobCode=\(code)&apiKey=fake")
            #expect(page.json["authEmulator"]?["success"] == "The email has been successfully verified.")
            let lookup = try await session.call("accounts:lookup", ["idToken": user["idToken"]!])
            #expect(lookup.json["users"]?.arrayValue?.first?["emailVerified"] == true)
            let again = try await session.request(.get, "/emulator/action?mode=verifyEmail&oobCode=\(code)&apiKey=fake")
            #expect(again.status == 400)
            let noKey = try await session.request(.get, "/emulator/action?mode=verifyEmail&oobCode=\(code)")
            #expect(noKey.json["authEmulator"]?["error"] == "missing apiKey query parameter")
        }
    }

    @Test func emailLinkSignInCreatesUser() async throws {
        try await AuthTestClient().run { session in
            let sent = try await session.call(
                "accounts:sendOobCode",
                ["requestType": "EMAIL_SIGNIN", "email": "link@example.com", "continueUrl": "http://localhost/done"])
            #expect(sent.status == 200)
            let record = try #require(try await codes(session).last)
            #expect(record["oobLink"]?.stringValue?.contains("continueUrl=http%3A%2F%2Flocalhost%2Fdone") == true)
            let wrongEmail = try await session.call(
                "accounts:signInWithEmailLink", ["email": "other@example.com", "oobCode": record["oobCode"]!])
            #expect(wrongEmail.errorMessage == "INVALID_EMAIL : The email provided does not match the sign-in email address.")
            let reply = try await session.call(
                "accounts:signInWithEmailLink", ["email": "link@example.com", "oobCode": record["oobCode"]!])
            #expect(reply.json["isNewUser"] == true)
            #expect(reply.json["kind"] == "identitytoolkit#EmailLinkSigninResponse")
            let uri = try await session.call(
                "accounts:createAuthUri", ["identifier": "link@example.com", "continueUri": "http://localhost/"])
            #expect(uri.json["registered"] == true)
            #expect(uri.json["signinMethods"] == ["emailLink"])
            let fresh = try await session.call(
                "accounts:createAuthUri", ["identifier": "new@example.com", "continueUri": "http://localhost/"])
            #expect(fresh.json["registered"] == false)
            #expect(fresh.json["allProviders"] == [])
        }
    }

    @Test func returnOobLinkIsAdminOnly() async throws {
        try await AuthTestClient().run { session in
            _ = try await session.signUp(email: "admin-link@example.com")
            let client = try await session.call(
                "accounts:sendOobCode",
                ["requestType": "PASSWORD_RESET", "email": "admin-link@example.com", "returnOobLink": true])
            #expect(client.errorMessage == "INSUFFICIENT_PERMISSION")
            let admin = try await session.call(
                "projects/\(AuthTestClient.projectID)/accounts:sendOobCode",
                ["requestType": "PASSWORD_RESET", "email": "admin-link@example.com", "returnOobLink": true], admin: true)
            #expect(admin.json["oobLink"]?.stringValue != nil)
            #expect(admin.json["oobCode"]?.stringValue?.count == 54)
        }
    }
}
