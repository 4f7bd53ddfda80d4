import EmulatorCore

/// All Auth state, one `ProjectState` per project id; every operation runs atomically inside the actor.
actor AuthStore {
    private var projects: [String: ProjectState] = [:]
    /// Receives the links and codes production would email or text.
    private let notify: @Sendable (String) -> Void

    init(notify: @escaping @Sendable (String) -> Void = { _ in }) {
        self.notify = notify
    }

    /// Runs `body` on the realm of `projectID` (and `tenantID`, created on first use). State is mutated in
    /// place: a write costs the same with ten users or a million.
    func withRealm<T: Sendable>(
        projectID: String, tenantID: String?, _ body: (inout Realm) throws(APIError) -> T
    ) throws(APIError) -> T {
        try withProject(projectID) { (project: inout ProjectState) throws(APIError) -> T in
            guard let tenantID else {
                project.root.settings = project.settings(for: nil)
                defer { deliver(&project.root.pool) }
                return try body(&project.root)
            }
            if project.tenants[tenantID] == nil {
                project.tenants[tenantID] = TenantState(
                    config: .implicit(projectID: projectID, tenantID: tenantID),
                    realm: Realm(projectID: projectID, tenantID: tenantID, settings: RealmSettings(), pool: UserPool()))
            }
            let settings = project.settings(for: project.tenants[tenantID]!.config)
            project.tenants[tenantID]!.realm.settings = settings
            defer { deliver(&project.tenants[tenantID]!.realm.pool) }
            return try body(&project.tenants[tenantID]!.realm)
        }
    }

    private func deliver(_ pool: inout UserPool) {
        guard !pool.outbox.isEmpty else { return }
        for message in pool.outbox { notify(message) }
        pool.outbox = []
    }

    /// Runs `body` on the whole project state (config, tenants), in place.
    func withProject<T: Sendable>(
        _ projectID: String, _ body: (inout ProjectState) throws(APIError) -> T
    ) throws(APIError) -> T {
        try body(&projects[projectID, default: ProjectState(projectID: projectID)])
    }

    /// Drops every project (emulator reset).
    func reset() {
        projects = [:]
    }
}
