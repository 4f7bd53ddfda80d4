/// An emulator whose whole state can be kept in memory and brought back: the suite's checkpoints. Taking one
/// is a copy-on-write snapshot (it costs the same with ten documents or a million); restoring one replaces
/// the state in one step, and the clients connected see the changes it implies, as if written.
public protocol Checkpointing: Sendable {
    /// The emulator's state now (every project), for `restore(_:)`.
    func checkpoint() async -> any Sendable
    /// Brings back a state `checkpoint()` of this emulator returned; listeners are told what changed. Throws
    /// only when the data folder cannot be written, and then nothing changed.
    func restore(_ checkpoint: any Sendable) async throws
    /// Lets go of what a checkpoint kept outside memory (Storage's blob files) once it is deleted or replaced.
    func release(_ checkpoint: any Sendable) async
}

extension Checkpointing {
    /// Nothing to let go of: the state is in memory and goes with the checkpoint.
    public func release(_ checkpoint: any Sendable) async {}
}
