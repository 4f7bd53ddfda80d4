import Synchronization

/// One identity's view of the emulators: the clients it makes send its credential with every request, as
/// rules-unit-testing's `RulesTestContext` does. Made by a `RulesTestEnvironment`.
public final class RulesTestContext: Sendable {
    /// Whom the context's requests speak for.
    public let identity: ClientIdentity
    private let emulators: HearthEmulators
    private let projectID: String
    private let storageBucket: String
    private let databaseNamespace: String
    private let clients = Mutex<Clients>(Clients())

    /// The connected clients, closed with the context.
    private struct Clients {
        var firestore: FirestoreClient?
        var databases: [String: DatabaseClient] = [:]
        var closed = false
    }

    init(identity: ClientIdentity, environment: RulesTestEnvironment) {
        self.identity = identity
        emulators = environment.emulators
        projectID = environment.projectID
        storageBucket = environment.storageBucket
        databaseNamespace = environment.databaseNamespace
    }

    /// The context's Firestore client for the project's default database (made once, kept until cleanup).
    public func firestore() throws -> FirestoreClient {
        let address = try emulators.address(of: .firestore)
        return try clients.withLock { clients in
            guard !clients.closed else { throw Self.closedError }
            if let client = clients.firestore { return client }
            let client = try FirestoreClient(address: address, projectID: projectID, identity: identity)
            clients.firestore = client
            return client
        }
    }

    /// The context's Storage client for `bucket` (the environment's by default).
    public func storage(bucket: String? = nil) throws -> StorageClient {
        let address = try emulators.address(of: .storage)
        if clients.withLock({ $0.closed }) { throw Self.closedError }
        return StorageClient(address: address, bucket: bucket ?? storageBucket, identity: identity)
    }

    /// The context's Realtime Database connection to `namespace` (the environment's by default), opened on
    /// first use and kept until cleanup.
    public func database(namespace: String? = nil) async throws -> DatabaseClient {
        let namespace = namespace ?? databaseNamespace
        if let client = clients.withLock({ $0.databases[namespace] }) { return client }
        let client = try await DatabaseClient.connect(
            address: try emulators.address(of: .database), namespace: namespace, identity: identity)
        let kept = clients.withLock { clients -> DatabaseClient? in
            guard !clients.closed else { return nil }
            if let other = clients.databases[namespace] { return other }
            clients.databases[namespace] = client
            return client
        }
        guard let kept else {
            await client.disconnect()
            throw Self.closedError
        }
        if kept !== client { await client.disconnect() }
        return kept
    }

    /// What a context's calls throw once it is closed.
    private static let closedError = ClientError(
        .failedPrecondition, message: "This test context is closed: its environment was cleaned up, or it was the "
            + "context of a finished withSecurityRulesDisabled.")

    /// Closes the context without clients to close (it was made after its environment's cleanup).
    func markClosed() {
        clients.withLock { $0.closed = true }
    }

    /// Closes the context's clients.
    func close() async {
        let open = clients.withLock { clients in
            defer { clients = Clients(closed: true) }
            return clients
        }
        await open.firestore?.close()
        for database in open.databases.values { await database.disconnect() }
    }
}
