import EmulatorCore
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// One listening HTTP server: binds `host:port` (0 picks a free port), reports the real port, and stops
/// gracefully. Every emulator and the hub run on one of these. With an HTTP/2 hand-off, connections that
/// open with the HTTP/2 preface (gRPC's h2c with prior knowledge) go to it, on the same port.
public final class EmulatorServer: Sendable {
    /// What the server answers with.
    public let responder: EmulatorResponder
    /// The requested host.
    public let host: String
    /// The requested port (0: any free port).
    public let requestedPort: Int
    /// Where HTTP/2 connections go; without one the server speaks HTTP/1.1 only.
    private let http2: (any HTTP2Handoff)?
    /// The HTTP/1.1 server to run instead of the plain one (WebSocket upgrades: the Realtime Database).
    private let http1: HTTPServerBuilder?
    /// Answers the requests it accepts on the event loop, before `responder` (plain HTTP/1.1 servers only).
    private let immediate: (any ImmediateResponder)?
    private let logger: Logger
    private let state = Mutex<State>(.idle)

    private enum State {
        case idle
        case running(group: ServiceGroup, task: Task<Void, Never>, port: Int, companion: (ServiceGroup, Task<Void, Never>)?)
        case stopped
    }

    /// The second address a server listening on `host` also takes, on the same port, as firebase-tools
    /// binds every address `localhost` resolves to: `::1` beside the default `127.0.0.1` (or `localhost`), so
    /// that a client whose resolver gives `localhost` as `::1` first (Node 17 and later, many macOS set-ups)
    /// connects too. `nil` for any other host.
    public static func companionHost(of host: String) -> String? {
        host == "127.0.0.1" || host == "localhost" ? "::1" : nil
    }

    /// The addresses a server for `host` binds: `localhost` as 127.0.0.1 (whatever the resolver gives
    /// first), then the companion, if any.
    public static func listenHosts(of host: String) -> [String] {
        [host == "localhost" ? "127.0.0.1" : host] + (companionHost(of: host).map { [$0] } ?? [])
    }

    /// Creates a server that is not yet listening; `http2` takes the connections that open with the HTTP/2
    /// preface; `immediate` answers the requests it accepts on the connection's event loop, ahead of
    /// `responder`; `http1` replaces the whole server, those two with it (one that also upgrades to
    /// WebSocket, say).
    public init(
        responder: EmulatorResponder, host: String, port: Int, logger: Logger, http2: (any HTTP2Handoff)? = nil,
        http1: HTTPServerBuilder? = nil, immediate: (any ImmediateResponder)? = nil
    ) {
        self.responder = responder
        self.host = host
        self.requestedPort = port
        self.http2 = http2
        self.http1 = http1
        self.immediate = immediate
        self.logger = logger
    }

    /// The bound port once `start()` has returned.
    public var port: Int? {
        state.withLock { state in
            if case .running(_, _, let port, _) = state { return port }
            return nil
        }
    }

    /// Binds and starts serving; returns the real port. Throws `ServerStartError` if the port is taken.
    /// The HTTP/2 hand-off, if any, is ready before the port accepts; stopping shuts it down last. With a
    /// companion host (`companionHost(of:)`) the server listens there too, on the same port, when it can:
    /// a machine without IPv6 loopback, or another process on that address and port, costs a warning only.
    @discardableResult
    public func start() async throws -> Int {
        var services: [any Service] = []
        if let http2 { services.append(http2) }  // a service group shuts down in reverse order: the listener first
        let hosts = Self.listenHosts(of: host)
        let (group, task, result) = await run(on: hosts[0], port: requestedPort, with: services)
        switch result {
        case .success(let port):
            var companion: (ServiceGroup, Task<Void, Never>)?
            if let other = hosts.dropFirst().first {
                let (otherGroup, otherTask, otherResult) = await run(on: other, port: port, with: [])
                if case .failure(let error) = otherResult {
                    await otherTask.value
                    logger.warning("not also listening on [\(other)]:\(port): \(ServerStartError(error, host: other, port: port))")
                } else {
                    companion = (otherGroup, otherTask)
                }
            }
            state.withLock { $0 = .running(group: group, task: task, port: port, companion: companion) }
            return port
        case .failure(let error):
            await task.value
            throw ServerStartError(error, host: host, port: requestedPort)
        }
    }

    /// Runs a listener on `host:port` in a service group after `services`; returns the group, the task that
    /// runs it, and the bound port or why binding failed.
    private func run(
        on host: String, port: Int, with services: [any Service]
    ) async -> (ServiceGroup, Task<Void, Never>, Result<Int, any Error>) {
        let bound = AsyncStream<Result<Int, any Error>>.makeStream()
        var responder = responder
        responder.access = LocalAccess(boundHost: self.host)
        var app = Application(
            responder: responder,
            server: http1
                ?? .emulator(
                    configuration: .emulator, answering: immediate, access: responder.access, cors: responder.cors,
                    handingHTTP2To: http2),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port)),
            onServerRunning: { channel in
                bound.continuation.yield(.success(channel.localAddress?.port ?? 0))
            },
            logger: logger
        )
        if let http2, !services.isEmpty {
            app.beforeServerStarts { try await http2.waitUntilReady() }
        }
        var configuration = ServiceGroupConfiguration(services: services + [app], logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(3)
        let group = ServiceGroup(configuration: configuration)
        let task = Task {
            do {
                try await group.run()
            } catch {
                bound.continuation.yield(.failure(error))
            }
            bound.continuation.finish()
        }
        // Waited for outside this task's cancellation: a start cancelled half-way (another emulator of the
        // suite failed) must still learn that its server runs, so that stopping it finds it running.
        let notStarted = Result<Int, any Error>.failure(ServerStartError.stoppedBeforeListening(host, port))
        let result = await Task {
            for await outcome in bound.stream { return outcome }
            return notStarted
        }.value
        return (group, task, result)
    }

    /// Stops accepting connections, lets in-flight requests finish (3 s at most), and returns once closed.
    public func stop() async {
        let running = state.withLock { state -> (ServiceGroup, Task<Void, Never>, (ServiceGroup, Task<Void, Never>)?)? in
            defer { state = .stopped }
            if case .running(let group, let task, _, let companion) = state { return (group, task, companion) }
            return nil
        }
        guard let (group, task, companion) = running else { return }
        if let (companionGroup, companionTask) = companion {
            await companionGroup.triggerGracefulShutdown()
            await companionTask.value
        }
        await group.triggerGracefulShutdown()
        await task.value
    }
}

/// Why a server could not start listening.
public enum ServerStartError: Error, CustomStringConvertible, Sendable {
    /// Another process already listens on the port.
    case portInUse(String, Int)
    /// The host cannot be bound (not an address of this machine, or unknown name).
    case cannotBind(String, Int, String)
    /// The server stopped before it bound its port.
    case stoppedBeforeListening(String, Int)

    init(_ error: any Error, host: String, port: Int) {
        if let io = error as? IOError, io.errnoCode == EADDRINUSE {
            self = .portInUse(host, port)
        } else if let io = error as? IOError {
            self = .cannotBind(host, port, io.description)
        } else {
            self = .cannotBind(host, port, "\(error)")
        }
    }

    /// One line naming the cause.
    public var description: String {
        switch self {
        case .portInUse(let host, let port): return "port \(port) on \(host) is already in use"
        case .cannotBind(let host, let port, let cause): return "cannot listen on \(host):\(port): \(cause)"
        case .stoppedBeforeListening(let host, let port): return "server for \(host):\(port) stopped before listening"
        }
    }
}
