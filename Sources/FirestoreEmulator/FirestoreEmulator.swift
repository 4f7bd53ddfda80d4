import EmulatorCore
import EmulatorHTTP
import Logging
import SecurityRules

/// The Cloud Firestore emulator: documents, queries, transactions and security rules behind the REST v1 API,
/// the emulator-only endpoints, the gRPC API and the web SDK's WebChannel streams, all on one port (default
/// 8080; gRPC connections are told apart by the HTTP/2 preface). Start it in process on port 0 from tests; `port` tells where it listens.
public final class FirestoreEmulator: ServedEmulator {
    /// The default port (firebase-tools `DEFAULT_PORTS.firestore`).
    public static let defaultPort = 8080

    /// The project whose rules the rules file holds.
    public let projectID: String
    let store: FirestoreStore
    let rules: FirestoreRules
    /// The indexes queries are checked against.
    let indexes: FirestoreIndexes
    /// The web SDK's streams over WebChannel.
    let webChannel: WebChannelEndpoint
    /// The HTTP server the emulator listens with.
    public let server: EmulatorServer

    /// Creates the emulator; nothing listens until `start()`. `rulesFile` (optional) is loaded as
    /// `projectID`'s rules and reloaded when it changes; projects without rules are open. With `durable`, the
    /// emulator starts with the documents kept there and writes every change there before acknowledging it.
    /// With `requests`, every rules decision is recorded there (the Emulator UI's Requests page).
    /// `indexesFile` (a `firestore.indexes.json`, optional) declares `projectID`'s indexes and is reloaded
    /// when it changes; with `strictIndexes`, a query whose index is missing is refused as production
    /// refuses it (see `FirestoreIndexes`), and an indexes file that cannot be read is an error (a warning
    /// otherwise).
    public convenience init(
        projectID: String, host: String = "127.0.0.1", port: Int = FirestoreEmulator.defaultPort,
        rulesFile: String? = nil, indexesFile: String? = nil, strictIndexes: Bool = false,
        clock: any EmulatorClock = SystemClock(), logger: Logger = Logger(label: "hearth.firestore"),
        durable: (any DurableStore)? = nil, requests: RequestLog? = nil
    ) throws {
        try self.init(
            projectID: projectID, host: host, port: port, rulesFile: rulesFile, indexesFile: indexesFile,
            strictIndexes: strictIndexes, clock: clock, logger: logger, durable: durable, requests: requests,
            grpcResponder: { service in FirestoreGRPCService(service: service) })
    }

    /// The emulator serving `grpcResponder(service)`'s calls over gRPC on its port.
    init(
        projectID: String, host: String = "127.0.0.1", port: Int = FirestoreEmulator.defaultPort,
        rulesFile: String? = nil, indexesFile: String? = nil, strictIndexes: Bool = false,
        clock: any EmulatorClock = SystemClock(),
        logger: Logger = Logger(label: "hearth.firestore"), durable: (any DurableStore)? = nil,
        requests: RequestLog? = nil, grpcResponder: (FirestoreService) -> any ImmediateGRPCResponder
    ) throws {
        self.projectID = projectID
        self.store = try FirestoreStore(clock: clock, durable: durable)
        self.rules = FirestoreRules(logger: logger, durable: durable, requests: requests)
        if let rulesFile {
            let diagnostics: [Diagnostic]
            do {
                diagnostics = try rules.watch(file: rulesFile, project: projectID)
            } catch {
                throw RulesFileError(path: rulesFile, messages: ["it cannot be read"])
            }
            let errors = diagnostics.filter { $0.severity == .error }
            guard errors.isEmpty else {
                throw RulesFileError(path: rulesFile, messages: errors.map(\.description))
            }
        }
        try rules.restoreKept()
        self.indexes = FirestoreIndexes(strict: strictIndexes, logger: logger)
        if let indexesFile {
            do {
                try indexes.watch(file: indexesFile, project: projectID)
            } catch {
                // Queries are only reported outside strict mode: a broken file must not stop what works today.
                if strictIndexes { throw error }
                logger.warning("\(error.message); queries are checked against the automatic indexes only")
            }
        }
        let service = FirestoreService(store: store, rules: rules, clock: clock, indexes: indexes)
        let rest = FirestoreREST(service: service)
        let webChannel = WebChannelEndpoint(service: FirestoreGRPCService(service: service))
        self.webChannel = webChannel
        self.server = EmulatorServer(
            responder: EmulatorResponder(
                cors: CORSPolicy(exposedHeaders: ["X-HTTP-Session-Id", "X-Client-Wire-Protocol"], allowsCredentials: true)
            ) { request, context in
                if let response = try await webChannel.respond(to: request) { return response }
                return try await rest.handle(request, context: context)
            },
            host: host, port: port, logger: logger,
            http2: GRPCEndpoint(responder: grpcResponder(service)), immediate: ImmediateResponders([rest, webChannel]))
    }

    /// Stops watching the rules and indexes files, ends the web SDK's sessions, then stops listening.
    public func stop() async {
        rules.stopWatching()
        indexes.stopWatching()
        webChannel.closeAll()
        await server.stop()
    }

    /// The indexes queries of the project needed and the indexes file did not declare, as the
    /// `firestore.indexes.json` entries that declare them; `nil` when none was missing.
    public var missingIndexes: String? {
        let missing = indexes.missing(project: projectID)
        guard missing["indexes"]?.arrayValue?.isEmpty == false || missing["fieldOverrides"]?.arrayValue?.isEmpty == false else {
            return nil
        }
        return missing.prettySerialized()
    }

    /// Deletes every document of the default database of `project` (of `projectID` when `nil`).
    public func clear(project: String? = nil, database: String = "(default)") throws {
        try store.clear(DatabaseName(project: project ?? projectID, database: database))
    }
}

/// A rules file that does not compile; the message names the file and each error.
public struct RulesFileError: Error, CustomStringConvertible {
    /// The file.
    public var path: String
    /// One line per error (`file:line:column: message`).
    public var messages: [String]

    /// `firestore: firestore.rules: it cannot be read`, or its errors one per line.
    public var description: String { "firestore: \(path): " + messages.joined(separator: "\n") }
}
