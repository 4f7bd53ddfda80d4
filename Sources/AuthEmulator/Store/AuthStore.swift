import EmulatorCore

/// All Auth state, one `ProjectState` per project id; every operation runs atomically inside the actor.
actor AuthStore {
    private var projects: [String: ProjectState] = [:]
    /// Receives the links and codes production would email or text.
    private let notify: @Sendable (String) -> Void

    init(notify: @escaping @Sendable (String) -> Void = { _ in }) {
        self.notify = notify
    }

    /// Runs `body` on the realm of `projectID` (and `tenantID`, created on first use).
    func withRealm<T: Sendable>(
        projectID: String, tenantID: String?, _ body: (inout Realm) throws(APIError) -> T
    ) throws(APIError) -> T {
        var project = projects[projectID] ?? ProjectState(projectID: projectID)
        defer { projects[projectID] = project }
        guard let tenantID else {
            project.root.settings = project.settings(for: nil)
            defer { deliver(&project.root.pool) }
            return try body(&project.root)
        }
        var tenant =
            project.tenants[tenantID]
            ?? TenantState(
                config: .implicit(projectID: projectID, tenantID: tenantID),
                realm: Realm(projectID: projectID, tenantID: tenantID, settings: RealmSettings(), pool: UserPool()))
        tenant.realm.settings = project.settings(for: tenant.config)
        defer {
            deliver(&tenant.realm.pool)
            project.tenants[tenantID] = tenant
        }
        return try body(&tenant.realm)
    }

    private func deliver(_ pool: inout UserPool) {
        for message in pool.outbox { notify(message) }
        pool.outbox = []
    }

    /// Runs `body` on the whole project state (config, tenants).
    func withProject<T: Sendable>(
        _ projectID: String, _ body: (inout ProjectState) throws(APIError) -> T
    ) throws(APIError) -> T {
        var project = projects[projectID] ?? ProjectState(projectID: projectID)
        defer { projects[projectID] = project }
        return try body(&project)
    }

    /// Drops every project (emulator reset).
    func reset() {
        projects = [:]
    }
}
