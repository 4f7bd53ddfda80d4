import EmulatorCore
import EmulatorHTTP
import Foundation

extension AuthOperations {
    /// `GET v2/projects/{p}/config` (Identity Platform `projects.getConfig`).
    static func getConfig(_ project: inout ProjectState, _ call: AuthCall) throws(APIError) -> JSONValue {
        try require(call.tenantID == nil, "((Can only get top-level configurations on agent projects.))")
        return project.adminConfig
    }

    /// `PATCH v2/projects/{p}/config?updateMask=` (`projects.updateConfig`): merges the masked fields, or without a
    /// mask replaces the config with production's defaults for what the body leaves out.
    ///
    /// Emulator limits: only `signIn.allowDuplicateEmails` and `emailPrivacyConfig.enableImprovedEmailPrivacy` are
    /// kept; `blockingFunctions` triggers are validated as the official emulator does but not stored, and `mfa` is the
    /// project's fixed setting (everything enabled).
    static func updateConfig(_ project: inout ProjectState, _ call: AuthCall) throws(APIError) -> JSONValue {
        try require(call.tenantID == nil, "((Can only update top-level configurations on agent projects.))")
        let body = call.body
        for (event, trigger) in try body.object("blockingFunctions")?.object("triggers")?.fields ?? [:] {
            try require(
                event == "beforeCreate" || event == "beforeSignIn", "INVALID_BLOCKING_FUNCTION : ((Event type is invalid.))")
            let uri = trigger["functionUri"]?.stringValue.flatMap { URL(string: $0) }
            try require(
                uri?.scheme?.isEmpty == false,
                "INVALID_BLOCKING_FUNCTION : ((Expected an absolute URI with valid scheme and host.))")
        }
        let allowDuplicateEmails = try body.object("signIn")?.bool("allowDuplicateEmails")
        let improvedEmailPrivacy = try body.object("emailPrivacyConfig")?.bool("enableImprovedEmailPrivacy")
        guard let mask = updateMask(of: call) else {
            project.allowDuplicateEmails = allowDuplicateEmails ?? false
            project.improvedEmailPrivacy = improvedEmailPrivacy ?? false
            return project.adminConfig
        }
        let merged = applying(mask, from: body.fields, to: project.adminConfig)
        if let value = merged["signIn"]?["allowDuplicateEmails"]?.boolValue { project.allowDuplicateEmails = value }
        if let value = merged["emailPrivacyConfig"]?["enableImprovedEmailPrivacy"]?.boolValue {
            project.improvedEmailPrivacy = value
        }
        return project.adminConfig
    }

    /// `POST v2/projects/{p}/tenants` (`projects.tenants.create`): a tenant with a generated 28-character id and
    /// production's defaults (every sign-in method off, MFA disabled).
    static func createTenant(_ project: inout ProjectState, _ call: AuthCall) throws(APIError) -> JSONValue {
        // The official emulator answers 500 here; 400 keeps the Admin SDKs from retrying a request that cannot succeed.
        try require(call.tenantID == nil, "INTERNAL_ERROR : Can only create tenant in agent project")
        var tenantID: String
        repeat { tenantID = RandomID.make(length: 28) } while project.tenants[tenantID] != nil
        return project.addTenant(try TenantConfig(tenantID: tenantID, projectID: project.projectID, from: call.body))
            .config.json
    }

    /// `GET v2/projects/{p}/tenants?pageSize=&pageToken=` (`projects.tenants.list`): tenants by ascending id after
    /// `pageToken`, `pageSize` (default 20, at most 1000; negative: all) at a time; a full page carries a token.
    static func listTenants(_ project: inout ProjectState, _ call: AuthCall) throws(APIError) -> JSONValue {
        let size = try pageSize(call.query["pageSize"], name: "pageSize")
        let token = call.query["pageToken"] ?? ""
        let configs = project.tenants.values.map(\.config)
            .filter { token.isEmpty || $0.tenantId > token }
            .sorted { $0.tenantId < $1.tenantId }
        let (tenants, next) = page(configs, size: size, id: \.tenantId)
        var reply: [String: JSONValue] = ["tenants": .array(tenants.map(\.json))]
        if let next { reply["nextPageToken"] = .string(next) }
        return .object(reply)
    }

    /// `GET v2/projects/{p}/tenants/{t}` (`projects.tenants.get`). Like the official emulator, an unknown tenant is
    /// created with everything enabled rather than reported missing.
    static func getTenant(_ project: inout ProjectState, _ call: AuthCall) throws(APIError) -> JSONValue {
        try project.tenant(tenantID(of: call)).config.json
    }

    /// `PATCH v2/projects/{p}/tenants/{t}?updateMask=` (`projects.tenants.patch`): merges the masked fields, or
    /// without a mask replaces the tenant with production's defaults for what the body leaves out.
    static func updateTenant(_ project: inout ProjectState, _ call: AuthCall) throws(APIError) -> JSONValue {
        let tenantID = try tenantID(of: call)
        var tenant = project.tenant(tenantID)
        var source = call.body
        if let mask = updateMask(of: call) {
            source = RequestBody(applying(mask, from: call.body.fields, to: tenant.config.json).objectValue ?? [:])
        }
        tenant.config = try TenantConfig(tenantID: tenantID, projectID: project.projectID, from: source)
        project.tenants[tenantID] = tenant
        return tenant.config.json
    }

    /// `DELETE v2/projects/{p}/tenants/{t}` (`projects.tenants.delete`): drops the tenant with its users and codes.
    /// An unknown tenant is not an error, as in the official emulator.
    static func deleteTenant(_ project: inout ProjectState, _ call: AuthCall) throws(APIError) -> JSONValue {
        project.tenants[try tenantID(of: call)] = nil
        return [:]
    }

    private static func tenantID(of call: AuthCall) throws(APIError) -> String {
        guard let tenantID = call.tenantID else { throw .authNotFound }
        return tenantID
    }

    /// The `updateMask` query parameter (comma-separated, possibly repeated), or `nil` when absent or empty.
    private static func updateMask(of call: AuthCall) -> String? {
        let mask = call.query.all("updateMask").joined(separator: ",")
        return mask.isEmpty ? nil : mask
    }

    /// A field-mask merge as the official emulator does it: for each dotted path the value in `update` replaces the
    /// stored one wholesale. Paths `update` lacks, or that step into one of its primitives or arrays, are skipped.
    static func applying(_ mask: String, from update: [String: JSONValue], to stored: JSONValue) -> JSONValue {
        var object = stored.objectValue ?? [:]
        for path in mask.split(separator: ",") {
            let fields = path.trimmingCharacters(in: .whitespaces).split(separator: ".").map(String.init)
            assign(fields[...], from: update, into: &object)
        }
        return .object(object)
    }

    private static func assign(
        _ path: ArraySlice<String>, from update: [String: JSONValue], into stored: inout [String: JSONValue]
    ) {
        guard let key = path.first, let value = update[key], value != .null else { return }
        guard path.count > 1 else {
            stored[key] = value
            return
        }
        guard case .object(let nested) = value else { return }
        var child = stored[key]?.objectValue ?? [:]
        assign(path.dropFirst(), from: nested, into: &child)
        stored[key] = .object(child)
    }
}

extension ProjectState {
    /// The project config resource (`v2/projects/{p}/config`).
    var adminConfig: JSONValue {
        [
            "signIn": ["allowDuplicateEmails": .bool(allowDuplicateEmails)],
            "blockingFunctions": [:],
            "emailPrivacyConfig": ["enableImprovedEmailPrivacy": .bool(improvedEmailPrivacy)],
            "mfa": settings(for: nil).mfa.json,
        ]
    }

    /// The tenant `tenantID`, made with everything enabled if it does not exist yet (as a tenant-scoped call does).
    mutating func tenant(_ tenantID: String) -> TenantState {
        tenants[tenantID] ?? addTenant(.implicit(projectID: projectID, tenantID: tenantID))
    }

    /// Adds (or replaces) the tenant `config` names, with no users.
    @discardableResult
    mutating func addTenant(_ config: TenantConfig) -> TenantState {
        let tenant = TenantState(
            config: config,
            realm: Realm(projectID: projectID, tenantID: config.tenantId, settings: RealmSettings(), pool: UserPool()))
        tenants[config.tenantId] = tenant
        return tenant
    }
}

extension TenantConfig {
    /// A tenant read from a request (or a merged resource): absent flags are `false` and an absent `mfaConfig` is
    /// disabled, as production defaults them; `tenantId` and `name` come from the path, never the body.
    init(tenantID: String, projectID: String, from body: RequestBody) throws(APIError) {
        self.init(
            tenantId: tenantID, name: "projects/\(projectID)/tenants/\(tenantID)",
            displayName: try body.string("displayName"),
            allowPasswordSignup: try body.bool("allowPasswordSignup") ?? false,
            enableEmailLinkSignin: try body.bool("enableEmailLinkSignin") ?? false,
            enableAnonymousUser: try body.bool("enableAnonymousUser") ?? false,
            disableAuth: try body.bool("disableAuth") ?? false,
            mfaConfig: try MFAConfig(body.object("mfaConfig")))
    }
}
