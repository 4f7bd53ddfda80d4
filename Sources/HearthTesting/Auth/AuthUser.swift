/// A user signed in to the Auth emulator, with the tokens it issued.
public struct AuthUser: Sendable, Hashable {
    /// The user's id (`localId`, the tokens' `user_id`).
    public let uid: String
    /// The email, for an email and password user.
    public let email: String?
    /// The ID token (an unsigned JWT, as the emulator issues them).
    public let idToken: String
    /// The refresh token, for `AuthClient.refresh(_:)`.
    public let refreshToken: String

    /// The identity that speaks for this user to the other emulators: its ID token.
    public var identity: ClientIdentity { .idToken(idToken) }
}
