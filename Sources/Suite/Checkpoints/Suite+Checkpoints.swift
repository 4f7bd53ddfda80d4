import EmulatorCore
import Foundation
import Synchronization

/// A state of every emulator of the suite, kept in memory under a name (`POST /emulator/v1/checkpoints/{name}`).
public struct SuiteCheckpoint: Sendable {
    /// The checkpoint's name.
    public let name: String
    /// When it was taken.
    public let createTime: Date
    let states: [(name: EmulatorName, state: any Sendable)]

    /// `{"name", "createTime"}`, as the hub lists it.
    var json: JSONValue { ["name": .string(name), "createTime": .string(createTime.iso8601WithMilliseconds)] }
}

/// A checkpoint request that cannot be done: a bad name (`invalidArgument`) or none of that name (`notFound`).
public struct CheckpointError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as Google's API errors say it.
    public var status: GoogleStatus
    /// The message.
    public var message: String

    /// The message.
    public var description: String { message }
}

extension Suite {
    /// The emulators whose state a checkpoint holds.
    private var checkpointable: [(name: EmulatorName, emulator: any Checkpointing)] {
        dataEmulators.compactMap { name, emulator in (emulator as? any Checkpointing).map { (name, $0) } }
    }

    /// Takes checkpoint `name` of every emulator (replacing an older one of that name): a copy-on-write
    /// snapshot, so it costs the same whatever the data. Names are 1 to 100 letters, digits, `-`, `_` and `.`.
    @discardableResult
    public func checkpoint(_ name: String) async throws(CheckpointError) -> SuiteCheckpoint {
        guard (1...100).contains(name.utf8.count),
            name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || "-_.".unicodeScalars.contains($0)) })
        else {
            throw CheckpointError(
                status: .invalidArgument, message: "Invalid checkpoint name '\(name.prefix(100))': use 1 to 100 letters, digits, '-', '_' and '.'.")
        }
        var states: [(name: EmulatorName, state: any Sendable)] = []
        for part in checkpointable { states.append((part.name, await part.emulator.checkpoint())) }
        let checkpoint = SuiteCheckpoint(name: name, createTime: Date(), states: states)
        if let replaced = checkpointStore.withLock({ $0.updateValue(checkpoint, forKey: name) }) { await release(replaced) }
        return checkpoint
    }

    private func release(_ checkpoint: SuiteCheckpoint) async {
        for part in checkpointable {
            guard let state = checkpoint.states.first(where: { $0.name == part.name })?.state else { continue }
            await part.emulator.release(state)
        }
    }

    /// Brings every emulator back to checkpoint `name`; connected clients see the changes it implies.
    @discardableResult
    public func restore(_ name: String) async throws(CheckpointError) -> SuiteCheckpoint {
        guard let checkpoint = checkpointStore.withLock({ $0[name] }) else {
            throw CheckpointError(status: .notFound, message: "No checkpoint named '\(name)'.")
        }
        for part in checkpointable {
            guard let state = checkpoint.states.first(where: { $0.name == part.name })?.state else { continue }
            do {
                try await part.emulator.restore(state)
            } catch {
                // Only a data folder that cannot be written stops a restore; that emulator kept its state.
                throw CheckpointError(status: .unavailable, message: "\(part.name.rawValue): \(error)")
            }
        }
        return checkpoint
    }

    /// Forgets checkpoint `name` (and the files only it kept); whether there was one.
    @discardableResult
    public func deleteCheckpoint(_ name: String) async -> Bool {
        guard let removed = checkpointStore.withLock({ $0.removeValue(forKey: name) }) else { return false }
        await release(removed)
        return true
    }

    /// The checkpoints, oldest first.
    public var checkpoints: [SuiteCheckpoint] {
        checkpointStore.withLock { Array($0.values) }.sorted { ($0.createTime, $0.name) < ($1.createTime, $1.name) }
    }
}
