import EmulatorCore
import Foundation
import HearthTesting
import Suite
import Testing

/// `AuthClient` against a real Auth emulator on free ports, each test with its own suite.
@Suite(.timeLimit(.minutes(1))) struct AuthClientTests {
    @Test func signUpThenSignIn() async throws {
        try await withAuth { auth in
            let created = try await auth.signUp(email: "ada@example.com", password: "secret12")
            #expect(created.email == "ada@example.com")
            #expect(created.uid.count == 28)
            let claims = try Self.claims(of: created)
            #expect(claims["user_id"]?.stringValue == created.uid)
            #expect(claims["email"]?.stringValue == "ada@example.com")
            #expect(claims["aud"]?.stringValue == "demo-kit")
            #expect(claims["firebase"]?["sign_in_provider"]?.stringValue == "password")

            let signedIn = try await auth.signIn(email: "ada@example.com", password: "secret12")
            #expect(signedIn.uid == created.uid)
            #expect(signedIn.email == "ada@example.com")
            #expect(signedIn.identity == .idToken(signedIn.idToken))
        }
    }

    @Test func refusalsCarryTheServersMessage() async throws {
        try await withAuth { auth in
            _ = try await auth.signUp(email: "bo@example.com", password: "secret12")
            let wrong = await #expect(throws: ClientError.self) {
                try await auth.signIn(email: "bo@example.com", password: "not-it")
            }
            #expect(wrong == ClientError(.invalidArgument, status: 400, message: "INVALID_PASSWORD"))
            let duplicate = await #expect(throws: ClientError.self) {
                try await auth.signUp(email: "bo@example.com", password: "other12")
            }
            #expect(duplicate == ClientError(.invalidArgument, status: 400, message: "EMAIL_EXISTS"))
            let weak = await #expect(throws: ClientError.self) { try await auth.signUp(email: "cy@example.com", password: "123") }
            #expect(weak?.message == "WEAK_PASSWORD : Password should be at least 6 characters")
        }
    }

    @Test func anonymousSignIn() async throws {
        try await withAuth { auth in
            let user = try await auth.signInAnonymously()
            #expect(user.email == nil)
            let claims = try Self.claims(of: user)
            #expect(claims["user_id"]?.stringValue == user.uid)
            #expect(claims["firebase"]?["sign_in_provider"]?.stringValue == "anonymous")
            #expect(try await auth.signInAnonymously().uid != user.uid)
        }
    }

    @Test func refreshKeepsTheUser() async throws {
        try await withAuth { auth in
            let user = try await auth.signUp(email: "di@example.com", password: "secret12")
            let refreshed = try await auth.refresh(user)
            #expect(refreshed.uid == user.uid)
            #expect(refreshed.email == user.email)
            #expect(!refreshed.refreshToken.isEmpty)
            let claims = try Self.claims(of: refreshed)
            #expect(claims["user_id"]?.stringValue == user.uid)
            #expect(claims["firebase"]?["sign_in_provider"]?.stringValue == "password")

            let anonymous = try await auth.refresh(try await auth.signInAnonymously())
            #expect(try Self.claims(of: anonymous)["firebase"]?["sign_in_provider"]?.stringValue == "anonymous")
        }
    }

    @Test func deletedAccountsCannotSignIn() async throws {
        try await withAuth { auth in
            let user = try await auth.signUp(email: "ed@example.com", password: "secret12")
            try await auth.deleteAccount(user)
            let error = await #expect(throws: ClientError.self) {
                try await auth.signIn(email: "ed@example.com", password: "secret12")
            }
            #expect(error?.message == "EMAIL_NOT_FOUND")
            #expect(await #expect(throws: ClientError.self) { try await auth.refresh(user) }?.message == "INVALID_REFRESH_TOKEN")
        }
    }

    /// The claims of `user`'s ID token.
    static func claims(of user: AuthUser) throws -> [String: JSONValue] {
        try #require(UnsignedJWT(decoding: user.idToken)).payload
    }

    /// Runs `body` with a client of an Auth emulator (project `demo-kit`).
    func withAuth(_ body: (AuthClient) async throws -> Void) async throws {
        var config = SuiteConfig(projectID: "demo-kit")
        try config.apply(only: ["auth"], project: nil, host: nil, ports: ["auth=0", "hub=0"])
        let suite = try Suite(config: config)
        try await suite.start()
        do {
            let port = try #require(suite.emulator(.auth)).port
            try await body(AuthClient(address: EmulatorAddress(host: "127.0.0.1", port: port)))
        } catch {
            await suite.stop()
            throw error
        }
        await suite.stop()
    }
}
