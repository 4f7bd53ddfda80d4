import EmulatorCore
import EmulatorHTTP
import Foundation

/// The official `auth_export` folder, as firebase-tools writes it from the emulator's HTTP API and reads it back:
///
/// - `accounts.json`: the project's own users, as `GET v1/projects/{p}/accounts:batchGet?maxResults=-1` returns
///   them (by localId, password hashes and salts kept), always with a `users` array;
/// - `accounts-<tenantId>.json`: the same for each tenant (every tenant, where firebase-tools stops at 20);
/// - `config.json`: the emulator config, as `GET /emulator/v1/projects/{p}/config` returns it.
///
/// Hearth extensions: `tenants.json` (`{"tenants": [...]}`, each tenant as `GET v2/projects/{p}/tenants/{t}`
/// returns it) keeps the tenants' settings, which firebase-tools does not export; and each user also carries what
/// only Hearth uses to sign it in: the `totpSecret` of its TOTP factors and the `passwordHashConfig` of an
/// imported production hash. The official emulator ignores both.
extension AuthEmulator: DataExporting {
    private static let configFile = "config.json"
    private static let tenantsFile = "tenants.json"

    /// Writes the project's users, tenants and config as the official `auth_export` folder (pretty-printed, as
    /// firebase-tools writes it), plus Hearth's `tenants.json`.
    public func exportData(to folder: URL, progress: TransferProgress) async throws {
        let project = await store.project(projectID)
        let tenants = project.tenants.values.sorted { $0.config.tenantId < $1.config.tenantId }
        var files: [(name: String, json: JSONValue, users: Int)] = [
            ("accounts.json", Self.accountsDocument(project.root.pool), project.root.pool.count)
        ]
        for tenant in tenants {
            files.append(
                ("accounts-\(tenant.config.tenantId).json", Self.accountsDocument(tenant.realm.pool), tenant.realm.pool.count))
        }
        files.append((Self.configFile, project.emulatorConfig, 0))
        files.append((Self.tenantsFile, ["tenants": .array(tenants.map(\.config.json))], 0))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        for file in files {
            let data = try encoder.encode(file.json)
            try data.write(to: folder.appendingPathComponent(file.name))
            progress.add(items: file.users, bytes: data.count)
        }
    }

    /// Replaces the project's Auth state with what `folder` holds, as firebase-tools' `--import` seeds a fresh
    /// emulator: `config.json` first (only `signIn.allowDuplicateEmails` and
    /// `emailPrivacyConfig.enableImprovedEmailPrivacy`), then Hearth's `tenants.json` when present, then every file
    /// whose name contains `accounts` as `accounts:batchCreate` takes it (`accounts.json` for the project,
    /// `accounts-<tenantId>.json` for a tenant, made with everything enabled when `tenants.json` does not define it).
    ///
    /// Unlike firebase-tools, which ignores users the emulator rejects, a rejected user fails the import. The new
    /// state is built apart and swapped in at the end, so a failed import changes nothing.
    public func importData(from folder: URL, progress: TransferProgress) async throws {
        let project = try Self.readProject(projectID, from: folder, now: api.clock.now(), progress: progress)
        try await store.replace(with: project)
    }

    /// `{"kind": "identitytoolkit#DownloadAccountResponse", "users": [...]}` by localId.
    private static func accountsDocument(_ pool: UserPool) -> JSONValue {
        AuthOperations.response("DownloadAccountResponse", ["users": .array(pool.sortedUsers().map(\.exportJSON))])
    }

    /// The project state an export folder describes, built without touching the emulator.
    private static func readProject(
        _ projectID: String, from folder: URL, now: Date, progress: TransferProgress
    ) throws(ImportError) -> ProjectState {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        } catch {
            throw ImportError(file: folder.path, "cannot be read: \(error.localizedDescription)")
        }
        var project = ProjectState(projectID: projectID)
        var call = AuthCall(
            body: RequestBody(), query: FormFields(parsing: ""), isAdmin: true, projectID: projectID, tenantID: nil,
            parameters: [:], now: now, origin: "http://127.0.0.1")
        if names.contains(configFile) {
            let file = folder.appendingPathComponent(configFile)
            call.body = RequestBody(try readObject(file, progress: progress))
            do {
                _ = try AuthOperations.updateEmulatorConfig(&project, call)
            } catch {
                throw ImportError(file: file.path, error.message)
            }
        }
        if names.contains(tenantsFile) {
            try readTenants(folder.appendingPathComponent(tenantsFile), into: &project, progress: progress)
        }
        for name in names where name.contains("accounts") {
            let file = folder.appendingPathComponent(name)
            let tenantID = name.replacingOccurrences(of: "accounts(-|)|.json", with: "", options: .regularExpression)
            call.tenantID = tenantID.isEmpty ? nil : tenantID
            try readAccounts(file, call: call, into: &project, progress: progress)
        }
        return project
    }

    /// Adds the tenants `tenants.json` defines, with their settings and no users.
    private static func readTenants(
        _ file: URL, into project: inout ProjectState, progress: TransferProgress
    ) throws(ImportError) {
        guard case .array(let entries)? = try readObject(file, progress: progress)["tenants"] else {
            throw ImportError(file: file.path, "is not {\"tenants\": [...]}.")
        }
        for (index, entry) in entries.enumerated() {
            guard let fields = entry.objectValue, let tenantID = fields["tenantId"]?.stringValue, !tenantID.isEmpty else {
                throw ImportError(file: file.path, "tenant \(index) has no tenantId.")
            }
            do {
                project.addTenant(try TenantConfig(tenantID: tenantID, projectID: project.projectID, from: RequestBody(fields)))
            } catch {
                throw ImportError(file: file.path, "tenant \(index) (\(tenantID)): \(error.message)")
            }
        }
    }

    /// Imports the users of one accounts file into the realm `call` names, as `accounts:batchCreate` with the file
    /// as its body; an empty `users` array only makes the tenant.
    private static func readAccounts(
        _ file: URL, call: AuthCall, into project: inout ProjectState, progress: TransferProgress
    ) throws(ImportError) {
        var call = call
        let data = try readData(file)
        call.body = RequestBody(try parseObject(data, file: file))
        guard case .array(let users)? = call.body.fields["users"] else {
            throw ImportError(file: file.path, "is not {\"users\": [...]}.")
        }
        let reply: JSONValue
        do {
            reply = try project.withRealm(tenantID: call.tenantID) { (realm: inout Realm) throws(APIError) -> JSONValue in
                users.isEmpty ? [:] : try AuthOperations.batchCreate(&realm, call)
            }
        } catch {
            throw ImportError(file: file.path, error.message)
        }
        if let rejected = reply["error"]?.arrayValue?.first {
            let index = Int(rejected["index"]?.intValue ?? 0)
            let localId = users.indices.contains(index) ? users[index]["localId"]?.stringValue ?? "" : ""
            throw ImportError(
                file: file.path, "user \(index) (localId '\(localId)'): \(rejected["message"]?.stringValue ?? "rejected")")
        }
        progress.add(items: users.count, bytes: data.count)
    }

    /// The JSON object `file` holds, counting its bytes.
    private static func readObject(_ file: URL, progress: TransferProgress) throws(ImportError) -> [String: JSONValue] {
        let data = try readData(file)
        let object = try parseObject(data, file: file)
        progress.add(bytes: data.count)
        return object
    }

    private static func readData(_ file: URL) throws(ImportError) -> Data {
        do {
            return try Data(contentsOf: file)
        } catch {
            throw ImportError(file: file.path, "cannot be read: \(error.localizedDescription)")
        }
    }

    private static func parseObject(_ data: Data, file: URL) throws(ImportError) -> [String: JSONValue] {
        let value: JSONValue
        do {
            value = try JSONValue.parse(data)
        } catch {
            throw ImportError(file: file.path, "is not valid JSON: \(error)")
        }
        guard let object = value.objectValue else { throw ImportError(file: file.path, "is not a JSON object.") }
        return object
    }
}

extension UserRecord {
    /// The record as an export keeps it: what `accounts:batchGet` returns, plus the secrets only Hearth signs in
    /// with (TOTP factors' `totpSecret`, an imported hash's `passwordHashConfig`), which `accounts:batchCreate` reads
    /// back.
    var exportJSON: JSONValue {
        guard passwordHashConfig != nil || mfaInfo?.contains(where: { $0.totpSecret != nil }) == true,
            var object = json.objectValue
        else { return json }
        object["passwordHashConfig"] = passwordHashConfig?.requestFields
        if let mfaInfo, !mfaInfo.isEmpty {
            object["mfaInfo"] = .array(
                mfaInfo.map { factor in
                    var fields = factor.rendered(obfuscated: false).objectValue ?? [:]
                    fields["totpSecret"] = factor.totpSecret.map(JSONValue.string)
                    return .object(fields)
                })
        }
        return .object(object)
    }
}

extension AuthEmulator: Checkpointing {
    /// Every project's users, tenants and config.
    public func checkpoint() async -> any Sendable { await store.checkpoint() }

    /// Brings every project's users, tenants and config back to `checkpoint`; throws (and changes nothing) if the
    /// data folder cannot be written.
    public func restore(_ checkpoint: any Sendable) async throws {
        guard let projects = checkpoint as? [String: ProjectState] else { return }
        try await store.restore(projects)
    }
}
