import EmulatorCore
import Foundation

extension FirestoreEmulator: DataExporting {
    /// Writes every database of the project (`(default)` and named ones) into `folder` as the official
    /// `firestore_export` folder: `firestore_export.overall_export_metadata` and its partition.
    public func exportData(to folder: URL, progress: TransferProgress) async throws {
        try FirestoreExport.write(store.snapshot(project: projectID), to: folder, name: folder.lastPathComponent, progress: progress)
    }

    /// Replaces the databases the export in `folder` holds (the official `firestore_export` folder or a
    /// production export: any folder with a `*.overall_export_metadata` file) with its documents, in the
    /// project whatever project wrote them. Every record is read and checked first; a bad one changes nothing.
    public func importData(from folder: URL, progress: TransferProgress) async throws {
        try store.replace(try FirestoreExport.read(from: folder, project: projectID, progress: progress))
    }
}

extension FirestoreEmulator: Checkpointing {
    /// Every database of every project, as it is now.
    public func checkpoint() async -> any Sendable { store.checkpoint() }

    /// Brings the databases back to `checkpoint`; listeners see the documents that change as one commit.
    public func restore(_ checkpoint: any Sendable) async throws {
        guard let checkpoint = checkpoint as? FirestoreStore.Checkpoint else { return }
        try store.restore(checkpoint)
    }
}
