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
            try project.withRealm(tenantID: tenantID) { (realm: inout Realm) throws(APIError) -> T in
                defer { deliver(&realm.pool) }
                return try body(&realm)
            }
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

    /// A copy of the state of `projectID` (empty if it has none), for an export.
    func project(_ projectID: String) -> ProjectState {
        projects[projectID] ?? ProjectState(projectID: projectID)
    }

    /// Replaces the state of `project`'s project with it (an import); other projects stay.
    func replace(with project: ProjectState) {
        projects[project.projectID] = project
    }

    /// Every project's state now (values: a checkpoint copies nothing until something changes).
    func checkpoint() -> [String: ProjectState] { projects }

    /// Brings back every project's state from `checkpoint`.
    func restore(_ checkpoint: [String: ProjectState]) { projects = checkpoint }

    /// Drops every project (emulator reset).
    func reset() {
        projects = [:]
    }
}
