import EmulatorCore
import Foundation
import Logging
import NIOHTTP1
import Suite

/// The emulators a test talks to: a whole suite started in this process on free ports, or a suite that is
/// already running (`hearth start`, `hearth exec`), found through the hub or the `*_EMULATOR_HOST` variables.
public final class HearthEmulators: Sendable {
    /// The project the emulators serve: the one given to `start`, or `GCLOUD_PROJECT` when attached.
    public let projectID: String
    /// The Auth emulator, when there is one.
    public let auth: EmulatorAddress?
    /// The Firestore emulator, when there is one.
    public let firestore: EmulatorAddress?
    /// The Storage emulator, when there is one.
    public let storage: EmulatorAddress?
    /// The Realtime Database emulator, when there is one.
    public let database: EmulatorAddress?
    /// The hub, when there is one.
    public let hub: EmulatorAddress?
    private let suite: Suite?

    private init(projectID: String, addresses: [EmulatorName: EmulatorAddress], suite: Suite?) {
        self.projectID = projectID
        auth = addresses[.auth]
        firestore = addresses[.firestore]
        storage = addresses[.storage]
        database = addresses[.database]
        hub = addresses[.hub]
        self.suite = suite
    }

    /// Whether the emulators run in this process (and stop with `stop()`).
    public var isInProcess: Bool { suite != nil }

    /// Starts `services` (every emulator by default) and the hub in this process, on free ports of
    /// 127.0.0.1, for `projectID`, with data in memory. Without rules, Firestore and the Realtime Database
    /// allow everything and Storage refuses every request but an admin's, as the official emulators do;
    /// `RulesTestEnvironment` loads rules. No hub locator file is written.
    public static func start(
        projectID: String = "demo-hearth-testing", services: [EmulatorName] = SuiteConfig.available
    ) async throws -> HearthEmulators {
        var config = SuiteConfig(projectID: projectID)
        try config.apply(
            only: services.map(\.rawValue), project: nil, host: nil,
            ports: (services + [.hub]).map { "\($0.rawValue)=0" })
        let suite = try Suite(
            config: config, logger: Logger(label: "hearth-testing") { _ in SwiftLogNoOpLogHandler() }, locatorFile: false)
        try await suite.start()
        var addresses: [EmulatorName: EmulatorAddress] = [:]
        for emulator in suite.running {
            addresses[emulator.name] = EmulatorAddress(host: emulator.connectHost, port: emulator.port)
        }
        return HearthEmulators(projectID: projectID, addresses: addresses, suite: suite)
    }

    /// Attaches to a running suite described by `environment`: the hub at `FIREBASE_EMULATOR_HUB` (asked for
    /// its emulators), else `FIRESTORE_EMULATOR_HOST`, `FIREBASE_AUTH_EMULATOR_HOST`,
    /// `FIREBASE_STORAGE_EMULATOR_HOST` (or `STORAGE_EMULATOR_HOST`) and `FIREBASE_DATABASE_EMULATOR_HOST`.
    /// The project is `GCLOUD_PROJECT`, else `projectID`. Returns nil when none of these variables is set.
    public static func attach(
        environment: [String: String] = ProcessInfo.processInfo.environment, projectID: String = "demo-hearth-testing"
    ) async throws -> HearthEmulators? {
        let project = environment["GCLOUD_PROJECT"].flatMap { $0.isEmpty ? nil : $0 } ?? projectID
        if let hubVariable = EmulatorName.hub.hostVariable, let hubText = environment[hubVariable], !hubText.isEmpty {
            guard let hub = EmulatorAddress(hubText) else { throw ClientError(.invalidArgument, message: "\(hubVariable)=\(hubText) is not host:port") }
            return HearthEmulators(projectID: project, addresses: try await emulators(listedBy: hub), suite: nil)
        }
        var addresses: [EmulatorName: EmulatorAddress] = [:]
        for name in SuiteConfig.available {
            // Storage is also found by the Cloud Storage clients' `STORAGE_EMULATOR_HOST`.
            let keys = [name.hostVariable].compactMap { $0 } + (name == .storage ? ["STORAGE_EMULATOR_HOST"] : [])
            guard let key = keys.first(where: { !(environment[$0] ?? "").isEmpty }), let text = environment[key] else { continue }
            guard let address = EmulatorAddress(text) else {
                throw ClientError(.invalidArgument, message: "\(key)=\(text) is not host:port")
            }
            addresses[name] = address
        }
        return addresses.isEmpty ? nil : HearthEmulators(projectID: project, addresses: addresses, suite: nil)
    }

    /// Attaches to a running suite when the environment names one (see `attach`), else starts one in this
    /// process (see `start`): the same tests run in process by default and under `hearth exec` in CI.
    public static func attachOrStart(projectID: String = "demo-hearth-testing") async throws -> HearthEmulators {
        if let attached = try await attach(projectID: projectID) { return attached }
        return try await start(projectID: projectID)
    }

    /// The hub's `GET /emulators`, read into addresses.
    private static func emulators(listedBy hub: EmulatorAddress) async throws -> [EmulatorName: EmulatorAddress] {
        let listing = try await HTTPExchange.send(.GET, hub.baseURL + "/emulators").checked().json
        var addresses: [EmulatorName: EmulatorAddress] = [.hub: hub]
        for (key, info) in listing.objectValue ?? [:] {
            guard let name = EmulatorName(rawValue: key), let host = info["host"]?.stringValue,
                let port = info["port"]?.intValue
            else { continue }
            addresses[name] = EmulatorAddress(host: host, port: Int(port))
        }
        return addresses
    }

    /// The address of `name`, or a `ClientError` saying it is not running.
    func address(of name: EmulatorName) throws(ClientError) -> EmulatorAddress {
        let address: EmulatorAddress? =
            switch name {
            case .auth: auth
            case .firestore: firestore
            case .storage: storage
            case .database: database
            case .hub: hub
            case .ui: nil
            }
        guard let address else {
            throw ClientError(.unavailable, message: "The \(name.displayName) emulator is not running.")
        }
        return address
    }

    /// Stops the emulators if they run in this process; does nothing for an attached suite.
    public func stop() async {
        await suite?.stop()
    }
}
