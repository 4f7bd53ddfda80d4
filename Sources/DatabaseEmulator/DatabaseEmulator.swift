import DatabaseRules
import DatabaseTree
import EmulatorCore
import EmulatorHTTP
import HummingbirdWebSocket
import Logging

/// The Realtime Database emulator: the wire protocol v5 over WebSocket (`/.ws`) that the JS, iOS, Android
/// and admin SDKs speak, the REST API with server-sent events, and `database.rules.json` enforced, on one
/// port (default 9000). `?ns=` picks the database, created on first use. Start it in process on port 0 from
/// tests; `port` tells where it listens.
public final class DatabaseEmulator: ServedEmulator {
    /// The default port (firebase-tools `DEFAULT_PORTS.database`).
    public static let defaultPort = 9000

    /// The project (its default database is `<project>-default-rtdb`).
    public let projectID: String
    let databases: Databases
    /// The HTTP server the emulator listens with.
    public let server: EmulatorServer
    /// The wire protocol's long-polling sessions (ended when the emulator stops).
    private let longPolling: LongPollEndpoint

    /// Creates the emulator; nothing listens until `start()`. `rulesFile` (optional) holds the rules of the
    /// project's default database and of each namespace in `rulesNamespaces`; it is reloaded when it changes.
    /// Throws `DatabaseRulesFileError` if the file cannot be read or does not parse. With `durable`, the
    /// emulator starts with the trees kept there (`DurableStoreError` if they cannot be read) and records every
    /// write there before acknowledging it. With `strictIndexes`, a REST query ordered by a child or by value
    /// that its path's `.indexOn` lacks is refused as production refuses it.
    public init(
        projectID: String, host: String = "127.0.0.1", port: Int = DatabaseEmulator.defaultPort,
        rulesFile: String? = nil, rulesNamespaces: [String] = [], strictIndexes: Bool = false,
        clock: any EmulatorClock = SystemClock(),
        logger: Logger = Logger(label: "hearth.database"), durable: (any DurableStore)? = nil,
        requests: RequestLog? = nil
    ) throws {
        self.projectID = projectID
        let defaultNamespace = SuiteConfig.defaultDatabaseNamespace(of: projectID)
        let files = rulesFile.map { [(path: $0, namespaces: [defaultNamespace] + rulesNamespaces.filter { $0 != defaultNamespace })] } ?? []
        let databases = try Databases(
            projectID: projectID, rulesFiles: files, clock: clock, logger: logger, durable: durable, requests: requests)
        self.databases = databases
        let longPolling = LongPollEndpoint(databases: databases)
        self.longPolling = longPolling
        let api = DatabaseAPI(databases: databases, longPolling: longPolling, strictIndexes: strictIndexes)
        let webSocket = WebSocketEndpoint(databases: databases, access: LocalAccess(boundHost: host), longPolling: longPolling)
        server = EmulatorServer(
            responder: EmulatorResponder { request, context in try await api.handle(request, context: context) },
            host: host, port: port, logger: logger,
            http1: .upgradable(to: ["websocket"]) { responder in
                HTTP1WebSocketUpgradeChannel(
                    responder: responder,
                    configuration: .init(
                        http1: .emulator,
                        ws: WebSocketServerConfiguration(maxFrameSize: 1 << 20, autoPing: .enabled(timePeriod: .seconds(30))))
                ) { request, _, _ in
                    webSocket.shouldUpgrade(request)
                }
            })
    }

    /// The namespace of requests that name none: `<project>-default-rtdb`.
    public var defaultNamespace: String { databases.defaultNamespace }

    /// Replaces the rules of `namespace` (default: the project's default database) with `source`, as
    /// `PUT /.settings/rules.json` does; throws `DatabaseRulesFileError` when they do not parse.
    public func setRules(_ source: String, namespace: String? = nil) throws {
        do {
            databases.database(namespace ?? defaultNamespace).setRules(try DatabaseRuleSet(source: source))
        } catch {
            throw DatabaseRulesFileError(path: "database.rules.json", message: error.message)
        }
    }

    /// Empties every database (rules stay). Throws only when the data folder refuses the change.
    public func reset() throws {
        try databases.reset()
    }

    /// Ends the long-polling sessions (a held poll is answered at once, so the server's graceful shutdown
    /// does not wait up to its 20 s hold), then stops listening.
    public func stop() async {
        longPolling.endAll()
        await server.stop()
    }
}
