import EmulatorCore
import Testing

@Suite struct UnsignedJWTTests {
    @Test func roundTripsWithEmptySignature() throws {
        let jwt = UnsignedJWT(payload: ["sub": "u1", "user_id": "u1", "iat": 1])
        #expect(jwt.encoded.hasSuffix("."))
        let decoded = try #require(UnsignedJWT(decoding: jwt.encoded))
        #expect(decoded.payload == jwt.payload)
        #expect(decoded.header["alg"] == "none")
    }

    @Test func credentialReadsOwnerAndTokens() {
        #expect(Credential(authorizationHeader: "Bearer owner") == .owner)
        #expect(Credential(authorizationHeader: "Firebase owner") == .owner)
        #expect(Credential(authorizationHeader: nil) == Credential.none)
        let token = UnsignedJWT(payload: ["sub": "alice", "email": "a@b.c"]).encoded
        guard case .user(let auth) = Credential(authorizationHeader: "Bearer \(token)") else {
            Issue.record("expected a user credential")
            return
        }
        #expect(auth.uid == "alice")
        #expect(auth.claims["email"] == "a@b.c")
        // A Google OAuth access token is the admin's, as the official Firestore emulator (1.19.9) takes it:
        // with `allow read: if false`, `Bearer ya29.abc` and `bearer YA29.x` read past the rules (404 for a
        // missing document) where `Bearer garbage` does not.
        #expect(Credential(authorizationHeader: "Bearer ya29.abc") == .owner)
        #expect(Credential(authorizationHeader: "bearer YA29.x") == .owner)
        #expect(Credential(authorizationHeader: "Bearer OWNER") == .owner)
        #expect(Credential(authorizationHeader: "Bearer garbage") == .opaque("garbage"))
        #expect(Credential.isAdmin(token: "ya29.a0") && !Credential.isAdmin(token: "ya30.a0"))
    }

    /// The scheme in any case, then the token with the white space around it removed; anything else is the
    /// whole header as an opaque value.
    @Test(arguments: [
        ("Bearer owner", Credential.owner), ("  BEARER   owner\t", .owner), ("FireBase Owner", .owner),
        ("Bearer", .opaque("Bearer")), ("Bearer\towner", .opaque("Bearer\towner")), ("Basic owner", .opaque("Basic owner")),
        ("Bearers owner", .opaque("Bearers owner")), ("owner", .opaque("owner")), ("Bearer ownerx", .opaque("ownerx")),
        ("Bearer ya29", .opaque("ya29")), ("", Credential.none), ("  ", Credential.none),
        ("Bearer \u{00A0}owner\u{00A0}", .owner), ("Bearer ünïcode", .opaque("ünïcode")),
    ])
    func readsTheSchemeAndTheToken(_ header: String, _ expected: Credential) {
        #expect(Credential(authorizationHeader: header) == expected)
    }
}
