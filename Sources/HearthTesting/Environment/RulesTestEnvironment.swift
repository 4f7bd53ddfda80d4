import EmulatorCore
import Synchronization

/// A project on the emulators with the rules under test loaded: the Swift form of rules-unit-testing's
/// `initializeTestEnvironment`. It hands out contexts that speak as a signed-in user, as nobody, or as an
/// admin that bypasses the rules, and clears the data between tests.
///
/// ```swift
/// try await withRulesTestEnvironment(firestoreRules: rules) { environment in
///     let alice = environment.authenticatedContext("alice")
///     try await assertFails { try await alice.firestore().document("users/bob").setData(["name": "Eve"]) }
/// }
/// ```
///
/// Where it differs from the JS library: the default Realtime Database namespace is
/// `<projectID>-default-rtdb` and the default bucket `<projectID>.appspot.com` (what an app's SDK uses for
/// the project), not `projectID`. Environments attached to one running suite share its project, its data
/// and (for Storage) its rules: tests that load different rules or clear data there should run
/// `.serialized` or pass their own `projectID`.
public final class RulesTestEnvironment: Sendable {
    /// The emulators the environment talks to.
    public let emulators: HearthEmulators
    /// The project whose rules and data the environment uses.
    public let projectID: String
    /// The Storage bucket contexts use by default: `<projectID>.appspot.com` unless given.
    public let storageBucket: String
    /// The Realtime Database namespace contexts use by default: `<projectID>-default-rtdb` (the default
    /// database of a Firebase project) unless given.
    public let databaseNamespace: String
    private let ownsEmulators: Bool
    private let state = Mutex<(contexts: [RulesTestContext], destroyed: Bool)>(([], false))

    /// Loads the given rules into `emulators` for `projectID` (the emulators' project by default). Without
    /// `emulators`, attaches to the suite the environment variables name (`hearth exec`), else starts one in
    /// this process, which `cleanup()` stops. Rules that do not compile throw a `ClientError` whose message
    /// is the emulator's (with line and column).
    public init(
        projectID: String? = nil, firestoreRules: String? = nil, storageRules: String? = nil,
        databaseRules: String? = nil, emulators: HearthEmulators? = nil, storageBucket: String? = nil,
        databaseNamespace: String? = nil
    ) async throws {
        if let emulators {
            self.emulators = emulators
            ownsEmulators = false
        } else {
            self.emulators = try await HearthEmulators.attachOrStart(projectID: projectID ?? "demo-hearth-testing")
            ownsEmulators = self.emulators.isInProcess
        }
        let project = projectID ?? self.emulators.projectID
        self.projectID = project
        self.storageBucket = storageBucket ?? SuiteConfig.defaultBucket(of: project)
        self.databaseNamespace = databaseNamespace ?? SuiteConfig.defaultDatabaseNamespace(of: project)
        do {
            if let firestoreRules { try await loadFirestoreRules(firestoreRules) }
            if let storageRules { try await loadStorageRules(storageRules) }
            if let databaseRules { try await loadDatabaseRules(databaseRules) }
        } catch {
            await cleanup()
            throw error
        }
    }

    /// A context whose requests carry an ID token for `uid`, with `claims` added (custom claims, or
    /// standard ones such as `email_verified`; `sub` and `user_id` are always `uid`), as rules-unit-testing's
    /// `authenticatedContext`.
    public func authenticatedContext(_ uid: String, claims: [String: JSONValue] = [:]) -> RulesTestContext {
        remember(RulesTestContext(identity: .user(uid, projectID: projectID, claims: claims), environment: self))
    }

    /// A context whose requests carry no credential (`request.auth == null`).
    public func unauthenticatedContext() -> RulesTestContext {
        remember(RulesTestContext(identity: .unauthenticated, environment: self))
    }

    /// Runs `body` with a context that bypasses the rules (the emulators' `owner` credential), to set up
    /// data the rules would refuse; the context is closed when `body` returns.
    public func withSecurityRulesDisabled<T>(
        isolation: isolated (any Actor)? = #isolation, _ body: (RulesTestContext) async throws -> T
    ) async throws -> T {
        let context = RulesTestContext(identity: .admin, environment: self)
        if state.withLock({ $0.destroyed }) { context.markClosed() }
        return try await run({ try await body(context) }, thenCleanUp: { await context.close() })
    }

    /// A client of the Auth emulator, to sign users up and in (its ID tokens work as identities).
    public func auth() throws -> AuthClient {
        AuthClient(address: try emulators.address(of: .auth))
    }

    /// Keeps `context` to close at cleanup; after cleanup it is returned closed (its calls fail).
    private func remember(_ context: RulesTestContext) -> RulesTestContext {
        let kept = state.withLock { state in
            if !state.destroyed { state.contexts.append(context) }
            return !state.destroyed
        }
        if !kept { context.markClosed() }
        return context
    }

    /// Closes every context's clients, and stops the emulators if the environment started them. Contexts
    /// made afterwards fail every call.
    public func cleanup() async {
        let open = state.withLock { state in
            defer { state = ([], true) }
            return state.contexts
        }
        for context in open { await context.close() }
        if ownsEmulators { await emulators.stop() }
    }
}

/// Makes a `RulesTestEnvironment` (see its initializer), runs `body` with it, and cleans it up whether
/// `body` returns or throws.
public func withRulesTestEnvironment<T>(
    projectID: String? = nil, firestoreRules: String? = nil, storageRules: String? = nil,
    databaseRules: String? = nil, emulators: HearthEmulators? = nil,
    isolation: isolated (any Actor)? = #isolation, _ body: (RulesTestEnvironment) async throws -> T
) async throws -> T {
    let environment = try await RulesTestEnvironment(
        projectID: projectID, firestoreRules: firestoreRules, storageRules: storageRules, databaseRules: databaseRules,
        emulators: emulators)
    return try await run({ try await body(environment) }, thenCleanUp: { await environment.cleanup() })
}

/// Runs `body`, then `cleanUp`, whether `body` returns or throws (an async `defer`).
private func run<T>(
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T, thenCleanUp cleanUp: () async -> Void
) async throws -> T {
    let result: T
    do {
        result = try await body()
    } catch {
        await cleanUp()
        throw error
    }
    await cleanUp()
    return result
}
