import EmulatorCore
import Synchronization

/// A project on the emulators with the rules under test loaded: the Swift form of rules-unit-testing's
/// `initializeTestEnvironment`. It hands out contexts that speak as a signed-in user, as nobody, or as an
/// admin that bypasses the rules, and clears the data between tests.
///
/// ```swift
/// let environment = try await RulesTestEnvironment(firestoreRules: rules)
/// let alice = environment.authenticatedContext("alice")
/// try await assertFails { try await alice.firestore().document("users/bob").setData(["name": "Eve"]) }
/// await environment.cleanup()
/// ```
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
    private let contexts = Mutex<[RulesTestContext]>([])

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
        } else if let attached = try await HearthEmulators.attach(projectID: projectID ?? "demo-hearth-testing") {
            self.emulators = attached
            ownsEmulators = false
        } else {
            self.emulators = try await HearthEmulators.start(projectID: projectID ?? "demo-hearth-testing")
            ownsEmulators = true
        }
        let project = projectID ?? self.emulators.projectID
        self.projectID = project
        self.storageBucket = storageBucket ?? "\(project).appspot.com"
        self.databaseNamespace = databaseNamespace ?? "\(project)-default-rtdb"
        do {
            if let firestoreRules { try await loadFirestoreRules(firestoreRules) }
            if let storageRules { try await loadStorageRules(storageRules) }
            if let databaseRules { try await loadDatabaseRules(databaseRules) }
        } catch {
            await cleanup()
            throw error
        }
    }

    /// A context whose requests carry an ID token for `uid` with `claims` added (custom claims, or
    /// overrides such as `email_verified`), as rules-unit-testing's `authenticatedContext`.
    public func authenticatedContext(_ uid: String, claims: [String: JSONValue] = [:]) -> RulesTestContext {
        remember(RulesTestContext(identity: .user(uid, projectID: projectID, claims: claims), environment: self))
    }

    /// A context whose requests carry no credential (`request.auth == null`).
    public func unauthenticatedContext() -> RulesTestContext {
        remember(RulesTestContext(identity: .unauthenticated, environment: self))
    }

    /// Runs `body` with a context that bypasses the rules (the emulators' `owner` credential), to set up
    /// data the rules would refuse; its clients are closed when `body` returns.
    public func withSecurityRulesDisabled<T: Sendable>(
        _ body: (RulesTestContext) async throws -> T
    ) async throws -> T {
        let context = RulesTestContext(identity: .admin, environment: self)
        do {
            let result = try await body(context)
            await context.close()
            return result
        } catch {
            await context.close()
            throw error
        }
    }

    /// A client of the Auth emulator, to sign users up and in (its ID tokens work as identities).
    public func auth() throws -> AuthClient {
        AuthClient(address: try emulators.address(of: .auth))
    }

    private func remember(_ context: RulesTestContext) -> RulesTestContext {
        contexts.withLock { $0.append(context) }
        return context
    }

    /// Closes every context's clients, and stops the emulators if the environment started them.
    public func cleanup() async {
        let open = contexts.withLock { contexts in
            defer { contexts = [] }
            return contexts
        }
        for context in open { await context.close() }
        if ownsEmulators { await emulators.stop() }
    }
}
