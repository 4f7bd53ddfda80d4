import EmulatorCore
import Foundation

extension StorageEmulator: DataExporting {
    /// Writes the official `storage_export` folder: `buckets.json`, `blobs/<uuid>` and
    /// `metadata/<uuid>.json` (`StorageExport`), the layout `POST /internal/export` writes too.
    public func exportData(to folder: URL, progress: TransferProgress) async throws {
        try StorageExport(store: store).write(into: folder, progress: progress)
    }

    /// Reads a `storage_export` folder of any firebase-tools version (`StorageImport`): every blob is
    /// copied and checked against its metadata before any bucket or object is added. Objects of names the
    /// export does not hold stay, as do uploads in progress; an imported object replaces one of its name.
    public func importData(from folder: URL, progress: TransferProgress) async throws {
        try await StorageImport(store: store, now: clock.now()).read(from: folder, progress: progress)
    }
}

extension StorageEmulator: Checkpointing {
    /// Every bucket and object (their blob files are kept until the checkpoint is released).
    public func checkpoint() async -> any Sendable { store.checkpoint() }

    /// Brings every bucket and object back to `checkpoint`; throws (and changes nothing) if the data folder
    /// cannot be written.
    public func restore(_ checkpoint: any Sendable) async throws {
        guard let checkpoint = checkpoint as? ObjectStore.Checkpoint else { return }
        try store.restore(checkpoint)
    }

    /// Removes the blob files only `checkpoint` kept.
    public func release(_ checkpoint: any Sendable) async {
        guard let checkpoint = checkpoint as? ObjectStore.Checkpoint else { return }
        store.release(checkpoint)
    }
}
