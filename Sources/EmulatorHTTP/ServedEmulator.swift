import EmulatorCore

/// An emulator served by one `EmulatorServer`: listening, its port, stopping and the in-process responder
/// for tests all come from the server.
public protocol ServedEmulator: EmulatorLifecycle {
    /// The HTTP server the emulator listens with.
    var server: EmulatorServer { get }
}

extension ServedEmulator {
    /// The responder, for in-process tests that need no socket.
    public var responder: EmulatorResponder { server.responder }

    /// Starts listening; returns the bound port.
    @discardableResult
    public func start() async throws -> Int { try await server.start() }

    /// The bound port, once started.
    public var port: Int? { server.port }

    /// Stops listening.
    public func stop() async { await server.stop() }
}
