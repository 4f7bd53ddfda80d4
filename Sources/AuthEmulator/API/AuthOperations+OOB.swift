import EmulatorCore
import Foundation

extension AuthOperations {
    /// The `mode` of `/emulator/action` links for each request type.
    static let actionModes = [
        "EMAIL_SIGNIN": "signIn", "PASSWORD_RESET": "resetPassword", "VERIFY_EMAIL": "verifyEmail",
        "VERIFY_AND_CHANGE_EMAIL": "verifyAndChangeEmail", "RECOVER_EMAIL": "recoverEmail",
    ]

    /// Creates and stores an email action code with its link
    /// (`<origin>/emulator/action?mode=..&lang=en&oobCode=..&apiKey=fake-api-key[&continueUrl=..][&tenantId=..]`).
    @discardableResult
    static func createOOB(
        email: String, newEmail: String?, type: String, realm: inout Realm, call: AuthCall, continueURL: String?
    ) -> OOBRecord {
        let code = RandomID.make(length: 54, from: RandomID.base64URL)
        var link =
            "\(call.origin)/emulator/action?mode=\(actionModes[type] ?? type)&lang=en&oobCode=\(code)&apiKey=fake-api-key"
        if let continueURL { link += "&continueUrl=\(formEncode(continueURL))" }
        if let tenant = realm.tenantID { link += "&tenantId=\(formEncode(tenant))" }
        let record = OOBRecord(email: email, newEmail: newEmail, requestType: type, oobCode: code, oobLink: link)
        realm.pool.addOOB(record)
        return record
    }

    /// `application/x-www-form-urlencoded` escaping.
    static func formEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        allowed.insert(charactersIn: "*-._")
        return (text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text).replacingOccurrences(
            of: "%20", with: "+")
    }

    /// Whether `text` is an absolute URI with a scheme and host.
    static func isAbsoluteURI(_ text: String) -> Bool {
        guard let url = URL(string: text), let scheme = url.scheme, !scheme.isEmpty else { return false }
        return url.host != nil && !(url.host ?? "").isEmpty
    }

    /// `accounts:sendOobCode`: password reset, email verification, email-link sign-in and change-email codes.
    /// Emails are not sent; codes are listed at `/emulator/v1/projects/{p}/oobCodes`.
    static func sendOOBCode(_ realm: inout Realm, _ call: AuthCall) throws(APIError) -> JSONValue {
        let body = call.body
        guard let type = try body.string("requestType"), !type.isEmpty, type != "OOB_REQ_TYPE_UNSPECIFIED" else {
            throw .auth("MISSING_REQ_TYPE")
        }
        let returnLink = try body.bool("returnOobLink") ?? false
        if returnLink { try require(call.isAdmin, "INSUFFICIENT_PERMISSION") }
        let continueURL = try body.string("continueUrl")
        if let continueURL {
            try require(
                isAbsoluteURI(continueURL), "INVALID_CONTINUE_URI : ((expected an absolute URI with valid scheme and host))")
        }
        let adminMode = returnLink && !body.has("idToken")
        var email: String
        var newEmail: String?
        switch type {
        case "EMAIL_SIGNIN":
            try require(realm.settings.enableEmailLinkSignin, "OPERATION_NOT_ALLOWED")
            email = canonicalEmail(try body.requiredString("email", missing: "MISSING_EMAIL"))
        case "PASSWORD_RESET":
            email = canonicalEmail(try body.requiredString("email", missing: "MISSING_EMAIL"))
            if realm.pool.user(email: email) == nil {
                if realm.settings.improvedEmailPrivacy {
                    return response("GetOobConfirmationCodeResponse", ["email": .string(email)])
                }
                throw .auth("EMAIL_NOT_FOUND")
            }
        case "VERIFY_EMAIL":
            if adminMode {
                email = canonicalEmail(try body.requiredString("email", missing: "MISSING_EMAIL"))
                try require(realm.pool.user(email: email) != nil, "USER_NOT_FOUND")
            } else {
                let user = try parseIDToken(try body.string("idToken") ?? "", realm: realm).user
                guard let userEmail = user.email else { throw .auth("MISSING_EMAIL") }
                email = userEmail
            }
        case "VERIFY_AND_CHANGE_EMAIL":
            newEmail = canonicalEmail(try body.requiredString("newEmail", missing: "MISSING_NEW_EMAIL"))
            if adminMode {
                email = canonicalEmail(try body.requiredString("email", missing: "MISSING_EMAIL"))
                try require(realm.pool.user(email: email) != nil, "USER_NOT_FOUND")
            } else {
                let token = try body.requiredString("idToken", missing: "MISSING_ID_TOKEN")
                guard let userEmail = try parseIDToken(token, realm: realm).user.email else {
                    throw .auth("MISSING_EMAIL")
                }
                email = userEmail
            }
            try require(realm.pool.user(email: newEmail!) == nil, "EMAIL_EXISTS")
        default:
            throw APIError.notImplementedMessage(type)
        }
        let record = createOOB(
            email: email, newEmail: newEmail, type: type, realm: &realm, call: call, continueURL: continueURL)
        var fields: [String: JSONValue?] = ["email": .string(email)]
        if returnLink {
            fields["oobCode"] = .string(record.oobCode)
            fields["oobLink"] = .string(record.oobLink)
        }
        return response("GetOobConfirmationCodeResponse", fields)
    }

    /// `accounts:resetPassword`: with `newPassword`, applies a PASSWORD_RESET code; without, reports what a
    /// code is for (any type) without using it up.
    static func resetPassword(_ realm: inout Realm, _ call: AuthCall) throws(APIError) -> JSONValue {
        let body = call.body
        try require(realm.settings.allowPasswordSignup, "PASSWORD_LOGIN_DISABLED")
        let code = try body.requiredString("oobCode", missing: "MISSING_OOB_CODE")
        guard let oob = realm.pool.oobCodes[code] else { throw .auth("INVALID_OOB_CODE") }
        if let password = try body.string("newPassword"), !password.isEmpty {
            try require(oob.requestType == "PASSWORD_RESET", "INVALID_OOB_CODE")
            try checkPasswordStrength(password)
            realm.pool.removeOOB(code)
            guard var user = realm.pool.user(email: oob.email) else { throw .auth("INVALID_OOB_CODE") }
            user.emailVerified = true
            setPassword(password, on: &user, now: call.now)
            user.providerUserInfo = []
            realm.pool.save(user)
        }
        return response(
            "ResetPasswordResponse",
            [
                "requestType": .string(oob.requestType),
                "email": oob.requestType == "EMAIL_SIGNIN" ? nil : .string(oob.email),
                "newEmail": oob.newEmail.json,
            ])
    }

    /// `accounts:signInWithEmailLink`: uses an EMAIL_SIGNIN code; creates the user if new, or links the email
    /// to the signed-in user when `idToken` is given.
    static func signInWithEmailLink(_ realm: inout Realm, _ call: AuthCall) throws(APIError) -> JSONValue {
        let body = call.body
        try require(realm.settings.enableEmailLinkSignin, "OPERATION_NOT_ALLOWED")
        var tokenUser: UserRecord?
        if let token = try body.string("idToken") { tokenUser = try parseIDToken(token, realm: realm).user }
        let email = canonicalEmail(try body.requiredString("email", missing: "MISSING_EMAIL"))
        let code = try body.requiredString("oobCode", missing: "MISSING_OOB_CODE")
        guard let oob = realm.pool.oobCodes[code], oob.requestType == "EMAIL_SIGNIN" else {
            throw .auth("INVALID_OOB_CODE")
        }
        try require(email == oob.email, "INVALID_EMAIL : The email provided does not match the sign-in email address.")
        realm.pool.removeOOB(code)
        let emailUser = realm.pool.user(email: email)
        if let existing = tokenUser ?? emailUser {
            try require(existing.disabled != true, "USER_DISABLED")
            if let tokenUser, let emailUser { try require(tokenUser.localId == emailUser.localId, "EMAIL_EXISTS") }
        }
        let (found, isNewUser) = existingOrNewUser(tokenUser ?? emailUser, realm: realm, call: call)
        var user = found
        user.email = email
        user.emailVerified = true
        user.emailLinkSignin = true
        user.tenantId = realm.tenantID
        realm.pool.save(user)
        var fields: [String: JSONValue?] = [
            "email": .string(email), "localId": .string(user.localId), "isNewUser": .bool(isNewUser),
        ]
        completeSignIn(&user, realm: &realm, provider: Provider.password, call: call, into: &fields)
        return response("EmailLinkSigninResponse", fields)
    }

    /// `accounts:createAuthUri`: which sign-in methods an email has.
    static func createAuthURI(_ realm: inout Realm, _ call: AuthCall) throws(APIError) -> JSONValue {
        let body = call.body
        let sessionId = try body.string("sessionId").flatMap { $0.isEmpty ? nil : $0 } ?? RandomID.make(length: 27)
        if body.has("providerId") { throw .authNotImplemented("Sign-in with IDP") }
        let identifier = try body.requiredString("identifier", missing: "MISSING_IDENTIFIER")
        let continueURI = try body.requiredString("continueUri", missing: "MISSING_CONTINUE_URI")
        try require(isValidEmail(identifier), "INVALID_IDENTIFIER")
        try require(isAbsoluteURI(continueURI), "INVALID_CONTINUE_URI")
        if realm.settings.improvedEmailPrivacy {
            return response("CreateAuthUriResponse", ["sessionId": .string(sessionId)])
        }
        let email = canonicalEmail(identifier)
        let users = realm.pool.users(emailOrProviderEmail: email).sorted { lhs, _ in lhs.email == email }
        var providers: [String] = []
        var methods: [String] = []
        if let user = users.first {
            for info in user.providerUserInfo ?? [] {
                switch info.providerId {
                case Provider.password:
                    providers.append(Provider.password)
                    if user.passwordHash != nil { methods.append(Provider.password) }
                    if user.emailLinkSignin == true { methods.append(Provider.emailLink) }
                case Provider.phone:
                    continue
                default:
                    providers.append(info.providerId)
                    methods.append(info.providerId)
                }
            }
        }
        return response(
            "CreateAuthUriResponse",
            [
                "registered": .bool(!users.isEmpty), "allProviders": .array(providers.map(JSONValue.string)),
                "sessionId": .string(sessionId), "signinMethods": .array(methods.map(JSONValue.string)),
            ])
    }
}
