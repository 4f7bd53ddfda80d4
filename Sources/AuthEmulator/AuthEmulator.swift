import EmulatorCore
import EmulatorHTTP
import Logging

/// The Firebase Auth emulator: Identity Toolkit, Secure Token and the emulator-only endpoints on one port
/// (default 9099). Start it in process on port 0 from tests; `port` tells where it listens.
public final class AuthEmulator: ServedEmulator {
    /// The default port (firebase-tools `DEFAULT_PORTS.auth`).
    public static let defaultPort = 9099

    /// The project id for calls that do not name one (API-key calls, `Bearer owner`).
    public let projectID: String
    let store: AuthStore
    let api: AuthAPI
    /// The HTTP server the emulator listens with.
    public let server: EmulatorServer

    /// Creates the emulator; nothing listens until `start()`. `notify` receives the email links and SMS codes
    /// that production would send (the official emulator logs them). With `durable`, the emulator starts with the
    /// users, tenants and config kept there and writes every change there before acknowledging it (codes sent by
    /// email or SMS are not kept); throws if what is kept there cannot be read.
    public init(
        projectID: String, host: String = "127.0.0.1", port: Int = AuthEmulator.defaultPort,
        clock: any EmulatorClock = SystemClock(), logger: Logger = Logger(label: "hearth.auth"),
        notify: @escaping @Sendable (String) -> Void = { _ in }, durable: (any DurableStore)? = nil
    ) throws(DurableStoreError) {
        self.projectID = projectID
        self.store = try AuthStore(notify: notify, durable: durable)
        self.api = AuthAPI(store: store, defaultProjectID: projectID, clock: clock)
        let api = self.api
        self.server = EmulatorServer(
            responder: EmulatorResponder { request, context in try await api.handle(request, context: context) },
            host: host, port: port, logger: logger)
    }

    /// Removes every user, code and tenant of every project; throws (and removes nothing) if the data folder
    /// cannot be written.
    public func reset() async throws { try await store.reset() }
}
