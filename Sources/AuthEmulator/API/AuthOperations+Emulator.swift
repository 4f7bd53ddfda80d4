import EmulatorCore

extension AuthOperations {
    /// Emulator-only: `DELETE /emulator/v1/projects/{p}[/tenants/{t}]/accounts` removes every user.
    static func deleteAllAccounts(_ realm: inout Realm, _ call: AuthCall) throws(APIError) -> JSONValue {
        realm.pool.deleteAllUsers()
        return [:]
    }

    /// Emulator-only: `GET /emulator/v1/projects/{p}/config`.
    static func emulatorConfig(_ project: inout ProjectState, _ call: AuthCall) throws(APIError) -> JSONValue {
        project.emulatorConfig
    }

    /// Emulator-only: `PATCH /emulator/v1/projects/{p}/config` (only the members present change).
    static func updateEmulatorConfig(_ project: inout ProjectState, _ call: AuthCall) throws(APIError) -> JSONValue {
        try project.applyEmulatorConfig(call.body)
        return project.emulatorConfig
    }

    /// Emulator-only: `GET /emulator/v1/projects/{p}[/tenants/{t}]/oobCodes`.
    static func listOOBCodes(_ realm: inout Realm, _ call: AuthCall) throws(APIError) -> JSONValue {
        let codes = realm.pool.orderedOOBCodes.map { record -> JSONValue in
            var object: [String: JSONValue] = [
                "email": .string(record.email), "oobCode": .string(record.oobCode),
                "oobLink": .string(record.oobLink), "requestType": .string(record.requestType),
            ]
            if let newEmail = record.newEmail { object["newEmail"] = .string(newEmail) }
            return .object(object)
        }
        return ["oobCodes": .array(codes)]
    }

    /// Emulator-only: `GET /emulator/v1/projects/{p}[/tenants/{t}]/verificationCodes`.
    static func listVerificationCodes(_ realm: inout Realm, _ call: AuthCall) throws(APIError) -> JSONValue {
        let codes = realm.pool.orderedVerificationCodes.map { record -> JSONValue in
            [
                "code": .string(record.code), "phoneNumber": .string(record.phoneNumber),
                "sessionInfo": .string(record.sessionInfo),
            ]
        }
        return ["verificationCodes": .array(codes)]
    }

    /// `GET v1/projects` (client): the project's public config.
    static let projectConfig: JSONValue = ["projectId": .string(projectNumber), "authorizedDomains": ["localhost"]]

    /// `GET v1/recaptchaParams`: the emulator needs no reCAPTCHA.
    static let recaptchaParams: JSONValue = [
        "kind": "identitytoolkit#GetRecaptchaParamResponse", "recaptchaStoken": "This-is-a-fake-token__Dont-send-this-to-the-Recaptcha-service__The-Auth-Emulator-does-not-support-Recaptcha",
        "recaptchaSiteKey": "Fake-key__Do-not-send-this-to-Recaptcha_",
    ]

    /// `GET v2/recaptchaConfig`: reCAPTCHA Enterprise off.
    static let recaptchaConfig: JSONValue = [
        "recaptchaEnforcementState": [], "recaptchaKey": "",
    ]

    /// `GET v2/passwordPolicy`: production's default policy (6 to 4096 characters).
    static let passwordPolicy: JSONValue = [
        "customStrengthOptions": ["minPasswordLength": 6, "maxPasswordLength": 4096],
        "enforcementState": "OFF", "allowedNonAlphanumericCharacters": [], "forceUpgradeOnSignin": false,
        "schemaVersion": 1,
    ]
}

extension ProjectState {
    /// Takes the members of an emulator config (`emulatorConfig`'s shape) that `body` has; the others stay.
    mutating func applyEmulatorConfig(_ body: RequestBody) throws(APIError) {
        if let value = try body.object("signIn")?.bool("allowDuplicateEmails") {
            allowDuplicateEmails = value
        }
        if let value = try body.object("emailPrivacyConfig")?.bool("enableImprovedEmailPrivacy") {
            improvedEmailPrivacy = value
        }
    }
}
