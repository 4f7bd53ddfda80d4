import EmulatorCore
import Foundation

/// How the Auth emulator's state sits in a data folder (`--data-dir`), three kinds of space per project:
///
/// - `auth/<project>`: `config` (the emulator config, as `GET /emulator/v1/projects/{p}/config` returns it) and
///   `tenant/<tenantId>` for each tenant (as `GET v2/projects/{p}/tenants/{t}` returns it);
/// - `auth/<project>/users`: the project's own users, keyed by localId;
/// - `auth/<project>/users/<tenantId>`: each tenant's users, keyed by localId.
///
/// A user is `UserRecord`'s JSON, whole: password hashes and salts, an imported hash's parameters, TOTP secrets.
/// Project and tenant ids are percent-encoded in space names and keys (at least `/` and `%`), so any id reads back.
/// A project with the default config and no users or tenants has no entries. Out-of-band codes, SMS codes and
/// temporary proofs are not kept: a restart forgets them.
enum DurableAuth {
    private static let prefix = "auth/"
    private static let configKey = "config"
    private static let tenantPrefix = "tenant/"
    private static let usersSegment = "users"

    // MARK: Layout

    /// The space of `projectID`'s config and tenants.
    static func projectSpace(_ projectID: String) -> String {
        prefix + DurableName.segment(projectID)
    }

    /// The space of the users of `projectID`'s own realm (`tenantID` nil) or of one of its tenants.
    static func usersSpace(_ projectID: String, tenantID: String?) -> String {
        projectSpace(projectID) + "/" + usersSegment + (tenantID.map { "/" + DurableName.segment($0) } ?? "")
    }

    // MARK: Changes

    /// The changes that bring the folder from `old` to `new` (a project absent on either side has no entries). With
    /// `comparingUsers` every user is compared (an import, a checkpoint restore); without, the users of a realm on both
    /// sides are taken as unchanged, as after a project operation (config, tenants), which never touches them.
    static func changes(
        from old: ProjectState?, to new: ProjectState?, comparingUsers: Bool
    ) throws(DurableStoreError) -> [DurableChange] {
        guard let projectID = new?.projectID ?? old?.projectID else { return [] }
        let space = projectSpace(projectID)
        var changes: [DurableChange] = []
        let encoder = JSONEncoder()
        guard let new else {
            changes.append(.deleteSpace(space))
            changes.append(.deleteSpace(usersSpace(projectID, tenantID: nil)))
            for tenantID in old?.tenants.keys.sorted() ?? [] {
                changes.append(.deleteSpace(usersSpace(projectID, tenantID: tenantID)))
            }
            return changes
        }
        if new.emulatorConfig != (old ?? ProjectState(projectID: projectID)).emulatorConfig {
            changes.append(.put(space: space, key: configKey, value: Array(new.emulatorConfig.serialized().utf8)))
        }
        var tenantIDs = Set(new.tenants.keys)
        if let old { tenantIDs.formUnion(old.tenants.keys) }
        for tenantID in tenantIDs.sorted() {
            let before = old?.tenants[tenantID]
            guard let after = new.tenants[tenantID] else {
                changes.append(.delete(space: space, key: tenantKey(tenantID)))
                changes.append(.deleteSpace(usersSpace(projectID, tenantID: tenantID)))
                continue
            }
            if after.config != before?.config { changes.append(tenantChange(after.config, projectID: projectID)) }
            if before == nil || comparingUsers {
                try changes += userChanges(
                    from: before?.realm.pool, to: after.realm.pool, in: usersSpace(projectID, tenantID: tenantID),
                    encoder: encoder)
            }
        }
        if old == nil || comparingUsers {
            try changes += userChanges(
                from: old?.root.pool, to: new.root.pool, in: usersSpace(projectID, tenantID: nil), encoder: encoder)
        }
        return changes
    }

    /// The changes one operation on `realm` made, as its pool's `journal` saw them.
    static func changes(_ journal: UserPool.Journal, in realm: Realm) throws(DurableStoreError) -> [DurableChange] {
        let space = usersSpace(realm.projectID, tenantID: realm.tenantID)
        let encoder = JSONEncoder()
        var changes: [DurableChange] = journal.cleared ? [.deleteSpace(space)] : []
        for (localId, before) in journal.before.sorted(by: { $0.key < $1.key }) {
            let after = realm.pool[localId: localId]
            if let after, after != before || journal.cleared {
                changes.append(try put(after, in: space, encoder: encoder))
            } else if after == nil, before != nil, !journal.cleared {
                changes.append(.delete(space: space, key: localId))
            }
        }
        return changes
    }

    /// The change that stores `tenant` of `projectID`.
    static func tenantChange(_ tenant: TenantConfig, projectID: String) -> DurableChange {
        .put(space: projectSpace(projectID), key: tenantKey(tenant.tenantId), value: Array(tenant.json.serialized().utf8))
    }

    private static func tenantKey(_ tenantID: String) -> String { tenantPrefix + DurableName.segment(tenantID) }

    /// The changes from the users of `old` (none if `nil`) to those of `new`, in `space`.
    private static func userChanges(
        from old: UserPool?, to new: UserPool, in space: String, encoder: JSONEncoder
    ) throws(DurableStoreError) -> [DurableChange] {
        var changes: [DurableChange] = []
        for (localId, user) in new.users where old?[localId: localId] != user {
            changes.append(try put(user, in: space, encoder: encoder))
        }
        for localId in old?.users.keys.filter({ new[localId: $0] == nil }) ?? [] {
            changes.append(.delete(space: space, key: localId))
        }
        return changes
    }

    private static func put(_ user: UserRecord, in space: String, encoder: JSONEncoder) throws(DurableStoreError)
        -> DurableChange
    {
        do {
            return .put(space: space, key: user.localId, value: Array(try encoder.encode(user)))
        } catch {
            throw DurableStoreError("the user \(user.localId) cannot be encoded: \(error)")
        }
    }

    // MARK: Loading

    /// Every project `durable` holds.
    static func load(from durable: any DurableStore) throws(DurableStoreError) -> [String: ProjectState] {
        var projects: [String: ProjectState] = [:]
        let decoder = JSONDecoder()
        // A project's own space sorts before its users' spaces: its tenants are known before their users are read.
        for space in try durable.spaces(prefix: prefix) {
            let parts = DurableName.segments(of: space.dropFirst(prefix.count))
            guard parts.count == 1 || (parts.count <= 3 && parts[1] == usersSegment) else {
                throw DurableStoreError("\(space): not an Auth space")
            }
            let projectID = parts[0]
            let tenantID = parts.count == 3 ? parts[2] : nil
            var project = projects[projectID] ?? ProjectState(projectID: projectID)
            do {
                try durable.scan(space) { key, bytes in
                    let data = Data(bytes)
                    if parts.count == 1 {
                        try read(key, data, into: &project)
                    } else if let tenantID {
                        guard project.tenants[tenantID] != nil else { throw Corrupt("users of a tenant with no entry") }
                        project.tenants[tenantID]?.realm.pool.save(try decoder.decode(UserRecord.self, from: data))
                    } else {
                        project.root.pool.save(try decoder.decode(UserRecord.self, from: data))
                    }
                }
            } catch let error as DurableStoreError {
                throw error
            } catch {
                throw DurableStoreError("\(space): \(error)")
            }
            projects[projectID] = project
        }
        return projects
    }

    /// Reads one entry of a project's space (`config` or a tenant) into `project`.
    private static func read(_ key: String, _ data: Data, into project: inout ProjectState) throws {
        guard let fields = try JSONValue.parse(data).objectValue else { throw Corrupt("\(key) is not a JSON object") }
        if key == configKey {
            try project.applyEmulatorConfig(RequestBody(fields))
        } else if key.hasPrefix(tenantPrefix), let tenantID = key.dropFirst(tenantPrefix.count).percentDecoded {
            project.addTenant(try TenantConfig(tenantID: tenantID, projectID: project.projectID, from: RequestBody(fields)))
        } else {
            throw Corrupt("\(key) is not an Auth entry")
        }
    }

    /// An entry that Hearth did not write.
    private struct Corrupt: Error, CustomStringConvertible {
        var description: String

        init(_ description: String) { self.description = description }
    }
}
