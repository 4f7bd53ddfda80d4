import EmulatorCore

/// All Auth state, one `ProjectState` per project id; every operation runs atomically inside the actor.
///
/// With a data folder (`durable`), each operation's changes to users, tenants and config are written there in one
/// batch before the operation answers, in the same actor turn; a change the folder refuses is undone in memory and
/// the operation fails. Out-of-band and SMS codes stay in memory only.
actor AuthStore {
    private var projects: [String: ProjectState]
    /// Receives the links and codes production would email or text.
    private let notify: @Sendable (String) -> Void
    /// Where every change is written before it is acknowledged (`--data-dir`), if anywhere.
    private let durable: (any DurableStore)?

    /// A store holding what `durable` kept (nothing without one), writing every change there from now on.
    init(notify: @escaping @Sendable (String) -> Void = { _ in }, durable: (any DurableStore)? = nil)
        throws(DurableStoreError)
    {
        self.notify = notify
        self.durable = durable
        if let durable {
            projects = try DurableAuth.load(from: durable)
        } else {
            projects = [:]
        }
    }

    /// Runs `body` on the realm of `projectID` (and `tenantID`, created on first use). State is mutated in
    /// place: a write costs the same with ten users or a million (and writes to the data folder only the users it
    /// changed).
    func withRealm<T: Sendable>(
        projectID: String, tenantID: String?, _ body: (inout Realm) throws(APIError) -> T
    ) throws(APIError) -> T {
        try inProject(projectID) { (project: inout ProjectState) throws(APIError) -> T in
            let newTenant = tenantID.flatMap { project.tenants[$0] == nil ? $0 : nil }
            var journal: UserPool.Journal?
            var changes: Result<[DurableChange], DurableStoreError> = .success([])
            let outcome = try project.withRealm(tenantID: tenantID) { (realm: inout Realm) -> Result<T, APIError> in
                defer { deliver(&realm.pool) }
                guard durable != nil else { return Result { () throws(APIError) -> T in try body(&realm) } }
                realm.pool.startJournal()
                let outcome = Result { () throws(APIError) -> T in try body(&realm) }
                let ended = realm.pool.endJournal()
                journal = ended
                changes = Result { () throws(DurableStoreError) in try DurableAuth.changes(ended, in: realm) }
                return outcome
            }
            guard let durable, let journal else { return try outcome.get() }
            do throws(DurableStoreError) {
                var batch = try changes.get()
                if let newTenant, let tenant = project.tenants[newTenant] {
                    batch.append(DurableAuth.tenantChange(tenant.config, projectID: projectID))
                }
                if !batch.isEmpty { try durable.write(batch) }
            } catch {
                if let newTenant {
                    project.tenants[newTenant] = nil
                } else {
                    try project.withRealm(tenantID: tenantID) { $0.pool.undo(journal) }
                }
                throw .unstored(error)
            }
            return try outcome.get()
        }
    }

    private func deliver(_ pool: inout UserPool) {
        guard !pool.outbox.isEmpty else { return }
        for message in pool.outbox { notify(message) }
        pool.outbox = []
    }

    /// Runs `body` on the whole project state (config, tenants), in place; it must not change users but by adding or
    /// removing tenants.
    func withProject<T: Sendable>(
        _ projectID: String, _ body: (inout ProjectState) throws(APIError) -> T
    ) throws(APIError) -> T {
        guard let durable else { return try inProject(projectID, body) }
        return try inProject(projectID) { (project: inout ProjectState) throws(APIError) -> T in
            let before = project
            let outcome = Result { () throws(APIError) -> T in try body(&project) }
            do throws(DurableStoreError) {
                let changes = try DurableAuth.changes(from: before, to: project, comparingUsers: false)
                if !changes.isEmpty { try durable.write(changes) }
            } catch {
                project = before
                throw .unstored(error)
            }
            return try outcome.get()
        }
    }

    private func inProject<T: Sendable>(
        _ projectID: String, _ body: (inout ProjectState) throws(APIError) -> T
    ) throws(APIError) -> T {
        try body(&projects[projectID, default: ProjectState(projectID: projectID)])
    }

    /// A copy of the state of `projectID` (empty if it has none), for an export.
    func project(_ projectID: String) -> ProjectState {
        projects[projectID] ?? ProjectState(projectID: projectID)
    }

    /// Replaces the state of `project`'s project with it (an import); other projects stay.
    func replace(with project: ProjectState) throws(APIError) {
        try replace([project.projectID: project])
    }

    /// Every project's state now (values: a checkpoint copies nothing until something changes).
    func checkpoint() -> [String: ProjectState] { projects }

    /// Brings back every project's state from `checkpoint`.
    func restore(_ checkpoint: [String: ProjectState]) throws(APIError) {
        var states = checkpoint.mapValues { Optional($0) }
        for projectID in projects.keys where checkpoint[projectID] == nil { states.updateValue(nil, forKey: projectID) }
        try replace(states)
    }

    /// Drops every project (emulator reset).
    func reset() throws(APIError) {
        try replace(projects.mapValues { _ in ProjectState?.none })
    }

    /// Sets each project of `states` to its state (`nil`: none), writing the differences to the data folder first.
    private func replace(_ states: [String: ProjectState?]) throws(APIError) {
        if let durable {
            do throws(DurableStoreError) {
                var changes: [DurableChange] = []
                for (projectID, state) in states {
                    changes += try DurableAuth.changes(from: projects[projectID], to: state, comparingUsers: true)
                }
                if !changes.isEmpty { try durable.write(changes) }
            } catch {
                throw .unstored(error)
            }
        }
        for (projectID, state) in states { projects[projectID] = state }
    }
}
