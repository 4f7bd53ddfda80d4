/// The lifecycle every emulator shares, so the suite can start and stop them alike.
public protocol EmulatorLifecycle: Sendable {
    /// Binds the emulator's port and starts serving; returns the bound port.
    func start() async throws -> Int
    /// Stops serving and releases the port.
    func stop() async
}
