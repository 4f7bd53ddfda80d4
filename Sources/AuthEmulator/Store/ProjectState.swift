import EmulatorCore

/// Everything the Auth emulator holds for one project: its own users, its config, and its tenants.
struct ProjectState: Sendable {
    var projectID: String
    var root: Realm
    var allowDuplicateEmails = false
    var improvedEmailPrivacy = false
    var tenants: [String: TenantState] = [:]

    init(projectID: String) {
        self.projectID = projectID
        self.root = Realm(projectID: projectID, settings: RealmSettings(), pool: UserPool())
    }

    /// The project's settings as its realms see them.
    func settings(for tenant: TenantConfig?) -> RealmSettings {
        var settings = RealmSettings()
        settings.oneAccountPerEmail = !allowDuplicateEmails
        settings.improvedEmailPrivacy = improvedEmailPrivacy
        if let tenant {
            settings.allowPasswordSignup = tenant.allowPasswordSignup
            settings.enableAnonymousUser = tenant.enableAnonymousUser
            settings.enableEmailLinkSignin = tenant.enableEmailLinkSignin
            settings.disableAuth = tenant.disableAuth
            settings.mfa = tenant.mfaConfig
        }
        return settings
    }

    /// Runs `body` on the project's own realm (`tenantID` nil) or on the tenant's, made with everything enabled on
    /// first use, after giving the realm the project's current settings.
    mutating func withRealm<T>(
        tenantID: String?, _ body: (inout Realm) throws(APIError) -> T
    ) throws(APIError) -> T {
        guard let tenantID else {
            root.settings = settings(for: nil)
            return try body(&root)
        }
        let config = tenant(tenantID).config
        tenants[tenantID]!.realm.settings = settings(for: config)
        return try body(&tenants[tenantID]!.realm)
    }

    /// The emulator-only config (`/emulator/v1/projects/{p}/config`).
    var emulatorConfig: JSONValue {
        [
            "signIn": ["allowDuplicateEmails": .bool(allowDuplicateEmails)],
            "emailPrivacyConfig": ["enableImprovedEmailPrivacy": .bool(improvedEmailPrivacy)],
        ]
    }
}

/// A tenant: its config and its own realm of users.
struct TenantState: Sendable {
    var config: TenantConfig
    var realm: Realm
}

/// A tenant resource (`v2/projects/{p}/tenants/{t}`).
struct TenantConfig: Sendable, Equatable {
    var tenantId: String
    var name: String
    var displayName: String?
    var allowPasswordSignup: Bool
    var enableEmailLinkSignin: Bool
    var enableAnonymousUser: Bool
    var disableAuth: Bool
    var mfaConfig: MFAConfig

    /// A tenant made on first use by a tenant-scoped call: everything enabled, for convenience.
    static func implicit(projectID: String, tenantID: String) -> TenantConfig {
        TenantConfig(
            tenantId: tenantID, name: "projects/\(projectID)/tenants/\(tenantID)", allowPasswordSignup: true,
            enableEmailLinkSignin: true, enableAnonymousUser: true, disableAuth: false, mfaConfig: .enabledForAll)
    }

    var json: JSONValue {
        var object: [String: JSONValue] = [
            "name": .string(name), "tenantId": .string(tenantId),
            "allowPasswordSignup": .bool(allowPasswordSignup), "enableEmailLinkSignin": .bool(enableEmailLinkSignin),
            "enableAnonymousUser": .bool(enableAnonymousUser), "disableAuth": .bool(disableAuth),
            "mfaConfig": mfaConfig.json,
        ]
        if let displayName { object["displayName"] = .string(displayName) }
        return .object(object)
    }
}
