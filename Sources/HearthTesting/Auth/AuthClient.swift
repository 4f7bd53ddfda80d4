import EmulatorCore
import Foundation
import NIOHTTP1

/// A client of the Auth emulator's REST API as the Firebase client SDKs call it: Identity Toolkit v1
/// (`/identitytoolkit.googleapis.com/v1/accounts:...`) and Secure Token (`/securetoken.googleapis.com/v1/token`),
/// with an API key. The emulator serves its own project to any key. A refusal is a `ClientError` with the
/// server's message verbatim (`EMAIL_EXISTS`, `INVALID_PASSWORD`...) and the code of its HTTP status.
public struct AuthClient: Sendable, Hashable {
    /// Where the Auth emulator listens.
    public let address: EmulatorAddress
    /// The API key sent as `?key=`.
    public let apiKey: String

    /// A client of the Auth emulator at `address`.
    public init(address: EmulatorAddress, apiKey: String = "fake-api-key") {
        self.address = address
        self.apiKey = apiKey
    }

    /// Creates an email and password account and signs it in (`accounts:signUp`).
    public func signUp(email: String, password: String) async throws -> AuthUser {
        try await signIn(with: "accounts:signUp", ["email": .string(email), "password": .string(password)])
    }

    /// Signs in with an email and password (`accounts:signInWithPassword`).
    public func signIn(email: String, password: String) async throws -> AuthUser {
        try await signIn(with: "accounts:signInWithPassword", ["email": .string(email), "password": .string(password)])
    }

    /// Creates an anonymous account and signs it in (`accounts:signUp` without an email).
    public func signInAnonymously() async throws -> AuthUser {
        try await signIn(with: "accounts:signUp", [:])
    }

    /// New tokens for `user` from its refresh token (Secure Token's `grant_type=refresh_token`).
    public func refresh(_ user: AuthUser) async throws -> AuthUser {
        let body = "grant_type=refresh_token&refresh_token=\(user.refreshToken.urlComponentEncoded)"
        let json = try await HTTPExchange.send(
            .POST, url("securetoken.googleapis.com/v1/token"),
            headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Data(body.utf8)
        ).checked().json
        return AuthUser(
            uid: try Self.field("user_id", of: json), email: user.email, idToken: try Self.field("id_token", of: json),
            refreshToken: try Self.field("refresh_token", of: json))
    }

    /// Deletes `user`'s account (`accounts:delete` with its ID token).
    public func deleteAccount(_ user: AuthUser) async throws {
        _ = try await post("accounts:delete", ["idToken": .string(user.idToken)])
    }

    /// Calls a sign-in method with `returnSecureToken` and reads the user it signed in.
    private func signIn(with method: String, _ fields: [String: JSONValue]) async throws(ClientError) -> AuthUser {
        var fields = fields
        fields["returnSecureToken"] = true
        let json = try await post(method, .object(fields))
        return AuthUser(
            uid: try Self.field("localId", of: json), email: json["email"]?.stringValue,
            idToken: try Self.field("idToken", of: json), refreshToken: try Self.field("refreshToken", of: json))
    }

    private func post(_ method: String, _ body: JSONValue) async throws(ClientError) -> JSONValue {
        try await HTTPExchange.send(.POST, url("identitytoolkit.googleapis.com/v1/\(method)"), json: body).checked().json
    }

    /// `http://host:port/{path}?key={apiKey}`.
    private func url(_ path: String) -> String {
        "\(address.baseURL)/\(path)?key=\(apiKey.urlComponentEncoded)"
    }

    /// A string field the response must have.
    private static func field(_ key: String, of json: JSONValue) throws(ClientError) -> String {
        guard let value = json[key]?.stringValue else {
            throw ClientError(.unknown, message: "The Auth emulator's response has no \(key): \(json.serialized())")
        }
        return value
    }
}
