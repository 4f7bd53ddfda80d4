import EmulatorCore
import HTTPTypes

/// The legacy `www.googleapis.com/identitytoolkit/v3/relyingparty/*` paths older SDKs call, mapped to v1.
enum LegacyPaths {
    private static let prefix = ["www.googleapis.com", "identitytoolkit", "v3", "relyingparty"]

    private static let v1Names: [String: String] = [
        "createAuthUri": "accounts:createAuthUri",
        "deleteAccount": "accounts:delete",
        "emailLinkSignin": "accounts:signInWithEmailLink",
        "getAccountInfo": "accounts:lookup",
        "getOobConfirmationCode": "accounts:sendOobCode",
        "getProjectConfig": "projects",
        "getRecaptchaParam": "recaptchaParams",
        "publicKeys": "publicKeys",
        "resetPassword": "accounts:resetPassword",
        "sendVerificationCode": "accounts:sendVerificationCode",
        "setAccountInfo": "accounts:update",
        "setProjectConfig": "setProjectConfig",
        "signupNewUser": "accounts:signUp",
        "verifyAssertion": "accounts:signInWithIdp",
        "verifyCustomToken": "accounts:signInWithCustomToken",
        "verifyPassword": "accounts:signInWithPassword",
        "verifyPhoneNumber": "accounts:signInWithPhoneNumber",
    ]

    /// The v1 path for a legacy path, or `nil` if `segments` is not a legacy path.
    static func rewrite(_ segments: [String], method: HTTPRequest.Method) throws(APIError) -> [String]? {
        guard segments.count == prefix.count + 1, Array(segments.prefix(prefix.count)) == prefix else { return nil }
        let name = segments[prefix.count]
        if name == "signOutUser" { throw .authNotImplemented("signOutUser") }
        guard let v1 = v1Names[name] else { return nil }
        return ["identitytoolkit.googleapis.com", "v1", v1]
    }
}
