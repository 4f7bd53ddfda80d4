import EmulatorCore

/// A user pool with the sign-in settings that govern it: a project, or one tenant of a project.
struct Realm: Sendable {
    var projectID: String
    var tenantID: String?
    var settings: RealmSettings
    var pool: UserPool
}

/// The settings that decide which sign-ins a realm allows.
struct RealmSettings: Sendable, Equatable {
    var allowPasswordSignup = true
    var enableAnonymousUser = true
    var enableEmailLinkSignin = true
    var disableAuth = false
    /// `false` when the project config allows several accounts with one email.
    var oneAccountPerEmail = true
    var improvedEmailPrivacy = false
    var mfa = MFAConfig.enabledForAll
}

/// `mfaConfig` of a project or tenant.
struct MFAConfig: Sendable, Equatable {
    var state: String
    var enabledProviders: [String]
    /// Whether TOTP is enabled (`providerConfigs[{state: ENABLED, totpProviderConfig}]`).
    var totpEnabled: Bool
    var adjacentIntervals: Int

    static let enabledForAll = MFAConfig(
        state: "ENABLED", enabledProviders: ["PHONE_SMS"], totpEnabled: true, adjacentIntervals: 5)
    static let disabled = MFAConfig(state: "DISABLED", enabledProviders: [], totpEnabled: false, adjacentIntervals: 5)

    /// Whether second factors are on at all (`ENABLED` or `MANDATORY`).
    var isOn: Bool { state == "ENABLED" || state == "MANDATORY" }

    var smsEnabled: Bool { isOn && enabledProviders.contains("PHONE_SMS") }

    var json: JSONValue {
        var object: [String: JSONValue] = [
            "state": .string(state), "enabledProviders": .array(enabledProviders.map(JSONValue.string)),
        ]
        if totpEnabled {
            object["providerConfigs"] = [
                [
                    "state": "ENABLED",
                    "totpProviderConfig": ["adjacentIntervals": .int(Int64(adjacentIntervals))],
                ]
            ]
        }
        return .object(object)
    }

    init(state: String, enabledProviders: [String], totpEnabled: Bool, adjacentIntervals: Int) {
        self.state = state
        self.enabledProviders = enabledProviders
        self.totpEnabled = totpEnabled
        self.adjacentIntervals = adjacentIntervals
    }

    /// Reads `mfaConfig` from a request; absent members take production's defaults (disabled).
    init(_ body: RequestBody?) throws(APIError) {
        state = try body?.string("state") ?? "DISABLED"
        enabledProviders = try body?.strings("enabledProviders") ?? []
        totpEnabled = false
        adjacentIntervals = 5
        for config in try body?.objects("providerConfigs") ?? [] {
            if let totp = try config.object("totpProviderConfig") {
                totpEnabled = (try config.string("state")) == "ENABLED"
                adjacentIntervals = Int(try totp.int64("adjacentIntervals") ?? 5)
            }
        }
    }
}
