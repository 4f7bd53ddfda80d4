import Foundation
import EmulatorCore
import HTTPTypes
import Testing

@Suite struct AccountTests {
    @Test func lookupByTokenAndAsAdmin() async throws {
        try await AuthTestClient().run { session in
            let user = try await session.signUp(email: "look@example.com")
            let mine = try await session.call("accounts:lookup", ["idToken": user["idToken"]!])
            #expect(mine.json["kind"] == "identitytoolkit#GetAccountInfoResponse")
            let record = try #require(mine.json["users"]?.arrayValue?.first)
            #expect(record["email"] == "look@example.com")
            #expect(record["providerUserInfo"]?.arrayValue?.first?["providerId"] == "password")
            #expect(record["createdAt"]?.stringValue != nil)
            let admin = try await session.call(
                "projects/\(AuthTestClient.projectID)/accounts:lookup", ["email": ["LOOK@example.com"]], admin: true)
            #expect(admin.json["users"]?.arrayValue?.count == 1)
            let none = try await session.call(
                "projects/\(AuthTestClient.projectID)/accounts:lookup", ["localId": ["missing"]], admin: true)
            #expect(none.json["users"] == nil)
            let noToken = try await session.call("accounts:lookup", [:])
            #expect(noToken.errorMessage == "MISSING_ID_TOKEN")
            let badToken = try await session.call("accounts:lookup", ["idToken": "x.y"])
            #expect(badToken.errorMessage == "INVALID_ID_TOKEN")
        }
    }

    @Test func updateProfilePasswordAndRevocation() async throws {
        try await AuthTestClient().run { session in
            let user = try await session.signUp(email: "up@example.com")
            let profile = try await session.call(
                "accounts:update", ["idToken": user["idToken"]!, "displayName": "Up", "photoUrl": "http://p/x.png"])
            #expect(profile.json["displayName"] == "Up")
            #expect(profile.json["idToken"] == nil)
            let password = try await session.call(
                "accounts:update", ["idToken": user["idToken"]!, "password": "newpass1"])
            #expect(password.json["idToken"]?.stringValue != nil)
            let signIn = try await session.call(
                "accounts:signInWithPassword", ["email": "up@example.com", "password": "newpass1"])
            #expect(signIn.status == 200)
            #expect(claims(of: signIn.json["idToken"])["name"] == "Up")
            let weak = try await session.call("accounts:update", ["idToken": password.json["idToken"]!, "password": "1"])
            #expect(weak.errorMessage == "WEAK_PASSWORD : Password should be at least 6 characters")
            let removed = try await session.call(
                "accounts:update", ["idToken": password.json["idToken"]!, "deleteAttribute": ["DISPLAY_NAME"]])
            #expect(removed.json["displayName"] == nil)
        }
    }

    @Test func adminClaimsDisableAndDelete() async throws {
        try await AuthTestClient().run { session in
            let user = try await session.signUp(email: "adm@example.com")
            let localId = user["localId"]!
            let path = "projects/\(AuthTestClient.projectID)/accounts:update"
            let claimed = try await session.call(path, ["localId": localId, "customAttributes": #"{"admin":true}"#], admin: true)
            #expect(claimed.status == 200)
            let signIn = try await session.call(
                "accounts:signInWithPassword", ["email": "adm@example.com", "password": "password1"])
            #expect(claims(of: signIn.json["idToken"])["admin"] == true)
            let forbidden = try await session.call(path, ["localId": localId, "customAttributes": #"{"iss":1}"#], admin: true)
            #expect(forbidden.errorMessage == "FORBIDDEN_CLAIM : iss")
            let clientClaims = try await session.call(
                "accounts:update", ["idToken": signIn.json["idToken"]!, "customAttributes": "{}"])
            #expect(clientClaims.errorMessage == "INSUFFICIENT_PERMISSION")
            _ = try await session.call(path, ["localId": localId, "disableUser": true], admin: true)
            let disabled = try await session.call(
                "accounts:signInWithPassword", ["email": "adm@example.com", "password": "password1"])
            #expect(disabled.errorMessage == "USER_DISABLED")
            let deleted = try await session.call(
                "projects/\(AuthTestClient.projectID)/accounts:delete", ["localId": localId], admin: true)
            #expect(deleted.json["kind"] == "identitytoolkit#DeleteAccountResponse")
            let gone = try await session.call(
                "projects/\(AuthTestClient.projectID)/accounts:delete", ["localId": localId], admin: true)
            #expect(gone.errorMessage == "USER_NOT_FOUND")
        }
    }

    @Test func validSinceRevokesOlderTokens() async throws {
        try await AuthTestClient().run { session in
            let user = try await session.signUp(email: "rev@example.com")
            let future = Int64(Date().timeIntervalSince1970) + 100
            _ = try await session.call(
                "projects/\(AuthTestClient.projectID)/accounts:update",
                ["localId": user["localId"]!, "validSince": .string(String(future))], admin: true)
            let reply = try await session.call("accounts:lookup", ["idToken": user["idToken"]!])
            #expect(reply.errorMessage == "TOKEN_EXPIRED")
        }
    }

    @Test func adminCreateNeedsCredentials() async throws {
        try await AuthTestClient().run { session in
            let path = "/identitytoolkit.googleapis.com/v1/projects/\(AuthTestClient.projectID)/accounts"
            let anonymous = try await session.request(.post, path, body: ["email": "x@y.z"])
            #expect(anonymous.status == 401)
            #expect(anonymous.json["error"]?["status"] == "UNAUTHENTICATED")
            let badBearer = try await session.request(
                .post, path, body: [:], headers: [.authorization: "Bearer not-a-token"])
            #expect(badBearer.status == 401)
            let created = try await session.request(
                .post, path, body: ["email": "x@y.z", "localId": "fixed-id", "phoneNumber": "+15555550100"], admin: true)
            #expect(created.json["localId"] == "fixed-id")
            #expect(created.json["idToken"] == nil)
            let duplicate = try await session.request(.post, path, body: ["localId": "fixed-id"], admin: true)
            #expect(duplicate.errorMessage == "DUPLICATE_LOCAL_ID")
            let phone = try await session.request(.post, path, body: ["phoneNumber": "+15555550100"], admin: true)
            #expect(phone.errorMessage == "PHONE_NUMBER_EXISTS")
        }
    }
}
