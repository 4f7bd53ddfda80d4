import EmulatorCore
import Foundation

extension Suite {
    /// The emulators whose data an export holds, in the order they are exported, with their folders.
    var exportable: [(name: EmulatorName, folder: String, emulator: any DataExporting)] {
        dataEmulators.compactMap { name, emulator in
            (emulator as? any DataExporting).map { (name, ExportMetadata.folder(of: name), $0) }
        }
    }

    /// The emulators that hold data, those of them that run, in the official order.
    var dataEmulators: [(name: EmulatorName, emulator: any Sendable)] {
        let all: [(EmulatorName, (any Sendable)?)] = [(.auth, auth), (.firestore, firestore), (.database, database), (.storage, storage)]
        return all.compactMap { name, emulator in emulator.map { (name, $0) } }
    }

    /// Exports to `path` (the running emulators, or those in `only`) as an export request asks — the hub's
    /// `POST /_admin/export`, the Emulator UI's — telling the developer it started and how it ended; returns
    /// the answer: `OK` and 200 when the export is on disk, the reason and 400 for a target that cannot be
    /// used, the error and 500 for an export that failed.
    func exportRequested(to path: String, only: Set<EmulatorName>? = nil) async -> (message: String, status: Int) {
        await runRequested(announcing: "Received export request. Exporting data to \(path).", failure: "Export failed") {
            () throws(ExportError) in try export(to: path, only: only)
        }
    }

    /// Runs the job `make` gives (a 400 answer with its message if it cannot), telling the developer
    /// `announcement` first and the job's summary, or `failure` and the error (a 500 answer), last.
    func runRequested(
        announcing announcement: String, failure: String, _ make: () throws(ExportError) -> some DataJob
    ) async -> (message: String, status: Int) {
        let job: any DataJob
        do {
            job = try make()
        } catch {
            return (error.message, 400)
        }
        notify(announcement)
        do {
            try await job.run()
        } catch {
            notify("\(failure): \(error)")
            return ("\(error)", 500)
        }
        notify(job.transfer.summary)
        return ("OK", 200)
    }

    /// Checks that `path` can take an export (see `export(to:only:)`) without writing anything.
    public static func checkExportTarget(_ path: String) throws(ExportError) {
        _ = try ExportTarget(path: path)
    }

    /// Starts an export of the running emulators (or those in `only`) to `path`, in the official layout;
    /// `transfer` reports its progress while `finish()` runs. Throws `ExportError` at once when the target
    /// cannot be used: the working directory or a parent, a file, or a folder that is not an export.
    public func export(to path: String, only: Set<EmulatorName>? = nil) throws(ExportError) -> Export {
        let target = try ExportTarget(path: path)
        let included = exportable.filter { only?.contains($0.name) ?? true }
        return Export(target: target, parts: included, transfer: DataTransfer(direction: .export, path: path, emulators: included.map(\.name)))
    }

    /// An export under way: `run()` writes everything into a staging folder beside the target, syncs it and
    /// swaps it in; if it fails or its task is cancelled, the staging folder is removed and the previous export
    /// stays as it was.
    public struct Export: DataJob {
        let target: ExportTarget
        let parts: [(name: EmulatorName, folder: String, emulator: any DataExporting)]
        /// What has been written so far.
        public let transfer: DataTransfer

        /// Writes the export.
        public func run() async throws {
            let staging: URL
            do {
                staging = try target.makeStaging()
            } catch {
                throw ExportError("cannot create a folder beside '\(target.url.path)': \(error.localizedDescription)")
            }
            do {
                for part in parts {
                    try Task.checkCancellation()
                    let folder = staging.appendingPathComponent(part.folder)
                    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                    do {
                        try await part.emulator.exportData(to: folder, progress: transfer.progress(of: part.name))
                    } catch let error as CancellationError {
                        throw error
                    } catch {
                        throw ExportError("\(part.name) export failed: \(error)")
                    }
                }
                try Task.checkCancellation()
                let metadata = ExportMetadata(emulators: parts.map(\.name))
                try Data(metadata.text.utf8).write(to: staging.appendingPathComponent(ExportTarget.metadataFileName))
                try DurableFile.syncTree(staging)
                try Task.checkCancellation()
                try target.swapIn(staging)
            } catch {
                try? FileManager.default.removeItem(at: staging)
                throw error
            }
        }
    }
}
