import AuthEmulator
import DataDirectory
import DatabaseEmulator
import EmulatorCore
import EmulatorHTTP
import EmulatorUI
import FirestoreEmulator
import Foundation
import Logging
import StorageEmulator
import Synchronization

/// The whole suite: starts the configured emulators in parallel, then the hub, and stops them all.
public final class Suite: Sendable {
    /// The version the hub reports.
    public static let version = "0.1.0"

    /// The config the suite runs with.
    public let config: SuiteConfig
    private let logger: Logger
    private let writesLocatorFile: Bool
    /// Where messages for the developer go (the CLI prints them).
    private let output: @Sendable (String) -> Void
    private let state = Mutex<[RunningEmulator]>([])
    private let started = Mutex<[EmulatorName: any EmulatorLifecycle]>([:])
    /// The checkpoints taken, by name.
    let checkpointStore = Mutex<[String: SuiteCheckpoint]>([:])

    /// The data folder every emulator keeps its state in (`--data-dir`), when there is one.
    public let dataDirectory: DataDirectory?

    /// The Auth emulator, when the suite runs it.
    public let auth: AuthEmulator?
    /// The Firestore emulator, when the suite runs it.
    public let firestore: FirestoreEmulator?
    /// The Storage emulator, when the suite runs it.
    public let storage: StorageEmulator?
    /// The Realtime Database emulator, when the suite runs it.
    public let database: DatabaseEmulator?
    /// Every rules decision, when the suite serves the Emulator UI (its Requests page reads it): there is one
    /// exactly when the config serves the UI.
    public let requests: RequestLog?
    /// The lines its Logs page shows: what `notify` tells the developer, and what reaches the logger's
    /// `SuiteLogHandler`, if it has one.
    public let logs: SuiteLog

    /// Creates a suite for `config`; nothing listens until `start()`. `notify` receives messages for the
    /// developer, such as the email links and SMS codes the Auth emulator does not send. With
    /// `locatorFile` false the hub does not write `locatorPath` (a suite inside a test process is not for
    /// other tools to find). With `config.dataDirectory`, every emulator starts with the state kept there and
    /// keeps every change there. Throws if a rules file cannot be read or does not compile, or if the data
    /// folder is in use by another process or cannot be read.
    public init(
        config: SuiteConfig, logger: Logger = Logger(label: "hearth"), locatorFile: Bool = true,
        logs: SuiteLog = SuiteLog(), notify: @escaping @Sendable (String) -> Void = { _ in }
    ) throws {
        self.config = config
        self.logger = logger
        writesLocatorFile = locatorFile
        self.logs = logs
        output = notify
        let dataDirectory = try config.dataDirectory.map { path throws(DurableStoreError) in try DataDirectory(path: path) }
        self.dataDirectory = dataDirectory
        let requests = config.emulators[.ui] != nil ? RequestLog() : nil
        self.requests = requests
        if config.emulators[.auth] != nil {
            let address = config.address(of: .auth)
            auth = try AuthEmulator(
                projectID: config.projectID, host: address.host, port: address.port, logger: logger,
                notify: { Self.tell($0, from: .auth, logs: logs, output: notify) }, durable: dataDirectory)
        } else {
            auth = nil
        }
        if let settings = config.emulators[.firestore] {
            let address = config.address(of: .firestore)
            firestore = try FirestoreEmulator(
                projectID: config.projectID, host: address.host, port: address.port,
                rulesFile: settings.rules.map(config.resolve), indexesFile: settings.indexes.map(config.resolve),
                strictIndexes: config.strictIndexes, logger: logger, durable: dataDirectory, requests: requests)
        } else {
            firestore = nil
        }
        if let settings = config.emulators[.database] {
            let address = config.address(of: .database)
            database = try DatabaseEmulator(
                projectID: config.projectID, host: address.host, port: address.port,
                rulesFile: settings.rules.map(config.resolve), strictIndexes: config.strictIndexes, logger: logger,
                durable: dataDirectory, requests: requests)
        } else {
            database = nil
        }
        if let settings = config.emulators[.storage] {
            let address = config.address(of: .storage)
            // Storage rules' firestore.get() reads the Firestore emulator's documents in process.
            storage = try StorageEmulator(
                projectID: config.projectID, host: address.host, port: address.port,
                rulesFile: settings.rules.map(config.resolve), bucketRulesFiles: settings.bucketRules.mapValues(config.resolve),
                documents: firestore?.rulesDocuments(),
                maxUploadSize: settings.maxUploadSize ?? StorageEmulator.defaultMaxUploadSize, logger: logger,
                durable: dataDirectory, requests: requests)
        } else {
            storage = nil
        }
    }

    /// The emulators that are listening, in the official order, the hub last.
    public var running: [RunningEmulator] {
        state.withLock { $0 }.sorted { $0.name < $1.name }
    }

    /// The listening record of `name`.
    public func emulator(_ name: EmulatorName) -> RunningEmulator? {
        running.first { $0.name == name }
    }

    private var emulators: [(EmulatorName, any EmulatorLifecycle)] {
        var result: [(EmulatorName, any EmulatorLifecycle)] = []
        if let auth { result.append((.auth, auth)) }
        if let firestore { result.append((.firestore, firestore)) }
        if let database { result.append((.database, database)) }
        if let storage { result.append((.storage, storage)) }
        return result
    }

    /// Starts every emulator in parallel, then the hub. If any fails, stops those started and throws
    /// `SuiteStartError` naming it.
    public func start() async throws {
        do {
            try await withThrowingTaskGroup(of: RunningEmulator.self) { group in
                for (name, emulator) in emulators {
                    let host = config.address(of: name).host
                    group.addTask {
                        do {
                            let port = try await emulator.start()
                            return RunningEmulator(name: name, host: host, port: port)
                        } catch {
                            throw SuiteStartError(emulator: name, cause: error)
                        }
                    }
                }
                for try await emulator in group {
                    record(emulator)
                }
            }
            try await startHub()
            if let requests { try await startUI(requests) }
        } catch {
            // An emulator whose start finished after another's failed was never recorded: stop every one
            // (stopping one that never started does nothing), so a failed start leaves nothing listening.
            await withTaskGroup(of: Void.self) { group in
                for (_, emulator) in emulators { group.addTask { await emulator.stop() } }
            }
            await stop()
            throw error
        }
    }

    private func startHub() async throws {
        let address = config.address(of: .hub)
        let hub = EmulatorServer(responder: Hub.responder(suite: self), host: address.host, port: address.port, logger: logger)
        do {
            let port = try await hub.start()
            started.withLock { $0[.hub] = ServerLifecycle(server: hub) }
            state.withLock { $0.append(RunningEmulator(name: .hub, host: address.host, port: port)) }
        } catch {
            throw SuiteStartError(emulator: .hub, cause: error)
        }
        if writesLocatorFile { writeLocatorFile() }
    }

    /// Starts the Emulator UI, once the emulators it shows listen. On a port nobody configured, a taken 4000
    /// is no reason to fail (another suite's UI may have it): the UI takes a free port instead, as
    /// firebase-tools does for its own servers.
    private func startUI(_ requests: RequestLog) async throws {
        let address = config.address(of: .ui)
        let projectID = config.projectID
        let actions = EmulatorUI.Actions(
            export: { [weak self] path in await self?.exportRequested(to: path) ?? ("The suite has stopped.", 500) },
            import: { [weak self] path in await self?.importRequested(from: path) ?? ("The suite has stopped.", 500) },
            databaseChildren: database.map { database -> EmulatorUI.Actions.Browse in
                { path, namespace, limit in try database.children(of: path, in: namespace, limit: limit) }
            })
        let responder = EmulatorUI.responder(requests: requests, logs: logs, actions: actions) { [weak self] in
            EmulatorUI.config(projectID: projectID, emulators: Hub.emulators(self?.running ?? []))
        }
        var ports = [address.port]
        if config.emulators[.ui]?.port == nil { ports.append(0) }
        for (index, port) in ports.enumerated() {
            let server = EmulatorServer(responder: responder, host: address.host, port: port, logger: logger)
            do {
                let bound = try await server.start()
                started.withLock { $0[.ui] = ServerLifecycle(server: server) }
                state.withLock { $0.append(RunningEmulator(name: .ui, host: address.host, port: bound)) }
                return
            } catch where index < ports.count - 1 {
                await server.stop()
            } catch {
                throw SuiteStartError(emulator: .ui, cause: error)
            }
        }
    }

    private func record(_ emulator: RunningEmulator) {
        state.withLock { $0.append(emulator) }
        if let instance = emulators.first(where: { $0.0 == emulator.name })?.1 {
            started.withLock { $0[emulator.name] = instance }
        }
    }

    /// Tells the developer `message` (prefixed with the emulator it comes from, if any, as `auth: ...`) and
    /// puts it on the Emulator UI's Logs page under that emulator (else `hearth`).
    func notify(_ message: String, from source: EmulatorName? = nil) {
        Self.tell(message, from: source, logs: logs, output: output)
    }

    private static func tell(
        _ message: String, from source: EmulatorName?, logs: SuiteLog, output: @Sendable (String) -> Void
    ) {
        logs.record(LogLine(level: "notice", source: source?.rawValue ?? "hearth", message: message))
        output(source.map { "\($0.rawValue): \(message)" } ?? message)
    }

    /// Stops everything that was started, in parallel, after naming the indexes queries needed and did not
    /// have (ready to paste into `firestore.indexes.json`). Safe to call more than once.
    public func stop() async {
        if let missing = firestore?.missingIndexes, started.withLock({ !$0.isEmpty }) {
            notify("Queries needed indexes that firestore.indexes.json does not declare (production refuses such queries). "
                + "Add these entries to it:\n\(missing)", from: .firestore)
        }
        let toStop = started.withLock { started -> [any EmulatorLifecycle] in
            defer { started = [:] }
            return Array(started.values)
        }
        await withTaskGroup(of: Void.self) { group in
            for emulator in toStop { group.addTask { await emulator.stop() } }
        }
        state.withLock { $0 = [] }
        if writesLocatorFile { try? FileManager.default.removeItem(atPath: locatorPath) }
        dataDirectory?.close()
    }

    /// Whether the data folder at `path` holds a suite's state already (it has been started on before).
    public static func dataDirectoryHoldsData(_ path: String) -> Bool {
        DataDirectory.holdsData(at: path)
    }

    /// `$TMPDIR/hub-<projectId>.json`, as firebase-tools writes it for other tools to find the hub.
    public var locatorPath: String { Self.locatorPath(projectID: config.projectID) }

    /// Where the hub of a suite for `projectID` writes its locator file (`hearth export` reads it).
    public static func locatorPath(projectID: String) -> String {
        let temporary = ProcessInfo.processInfo.environment["TMPDIR"] ?? NSTemporaryDirectory()
        return (temporary as NSString).appendingPathComponent("hub-\(projectID).json")
    }

    private func writeLocatorFile() {
        let data = Data(Hub.locator(suite: self, includeAddress: false).serialized().utf8)
        _ = FileManager.default.createFile(atPath: locatorPath, contents: data)
    }
}

/// A server of the suite's own (the hub, the UI) as an `EmulatorLifecycle`.
private struct ServerLifecycle: EmulatorLifecycle {
    let server: EmulatorServer
    func start() async throws -> Int { try await server.start() }
    func stop() async { await server.stop() }
}

/// An emulator that could not start; the message names it and the cause.
public struct SuiteStartError: Error, CustomStringConvertible {
    /// The emulator that failed.
    public var emulator: EmulatorName
    /// What went wrong.
    public var cause: any Error

    /// `auth: port 9099 on 127.0.0.1 is already in use`.
    public var description: String { "\(emulator.rawValue): \(cause)" }
}
