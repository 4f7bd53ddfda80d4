import EmulatorCore
import Foundation

extension Suite {
    /// Imports the export at `path` into the running emulators as the Emulator UI's import asks, telling the
    /// developer it started and how it ended; answers as `exportRequested` does. An emulator whose part cannot
    /// be read keeps its data (those before it have taken theirs).
    func importRequested(from path: String) async -> (message: String, status: Int) {
        await runRequested(announcing: "Received import request. Importing data from \(path).", failure: "Import failed") {
            () throws(ExportError) in try importData(from: path)
        }
    }

    /// Finds what the folder at `path` holds for the suite's emulators, as the official `--import` does: an
    /// export (`firebase-export-metadata.json`), else a production Firestore export (a
    /// `*.overall_export_metadata` file), else a folder of Realtime Database `<namespace>.json` files. Sections
    /// for emulators that do not run are left out. Throws `ExportError` when the folder holds none of these.
    public func importData(from path: String) throws(ExportError) -> Import {
        let folder = URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true))
            .standardizedFileURL
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder) else {
            throw ExportError("Import path '\(path)' does not exist.")
        }
        guard isFolder.boolValue else { throw ExportError("Import path '\(path)' is a file, not a folder.") }
        let sources = try Self.importSources(in: folder, path: path)
        let parts = exportable.compactMap { part in
            sources[part.name].map { (name: part.name, folder: $0, emulator: part.emulator) }
        }
        return Import(parts: parts, transfer: DataTransfer(direction: .import, path: path, emulators: parts.map(\.name)))
    }

    /// The folder of each emulator's data in the import folder.
    private static func importSources(in folder: URL, path: String) throws(ExportError) -> [EmulatorName: URL] {
        let metadataFile = folder.appendingPathComponent(ExportTarget.metadataFileName)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        if names.contains(ExportTarget.metadataFileName) {
            let metadata: ExportMetadata
            do {
                metadata = try ExportMetadata(contentsOf: metadataFile)
            } catch {
                throw ExportError("Cannot import: \(error)")
            }
            var sources: [EmulatorName: URL] = [:]
            // Paths are relative to the export folder, or absolute (firebase-tools resolves both).
            func resolve(_ path: String) -> URL {
                path.hasPrefix("/") ? URL(fileURLWithPath: path) : folder.appendingPathComponent(path)
            }
            for (name, relative) in metadata.folders {
                var source = resolve(relative)
                if name == .firestore, let file = metadata.firestoreMetadataFile {
                    source = resolve(file).deletingLastPathComponent()
                }
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: source.path, isDirectory: &isFolder), isFolder.boolValue else {
                    throw ExportError("Cannot import: \(metadataFile.path) names \(name.rawValue) data in '\(relative)', which is not a folder there.")
                }
                sources[name] = source
            }
            return sources
        }
        if names.contains(where: { $0.hasSuffix(".overall_export_metadata") }) { return [.firestore: folder] }
        if names.contains(where: { $0.hasSuffix(".json") }) { return [.database: folder] }
        throw ExportError(
            "Import path '\(path)' holds no export: no \(ExportTarget.metadataFileName), no Firestore *.overall_export_metadata "
                + "and no Realtime Database *.json files.")
    }

    /// An import under way: `run()` hands each emulator its folder; each reads and checks all of it before it
    /// changes anything.
    public struct Import: DataJob {
        let parts: [(name: EmulatorName, folder: URL, emulator: any DataExporting)]
        /// What has been read so far.
        public let transfer: DataTransfer

        /// Reads the import into the emulators.
        public func run() async throws {
            for part in parts {
                do {
                    try await part.emulator.importData(from: part.folder, progress: transfer.progress(of: part.name))
                } catch let error as ImportError {
                    throw ExportError("Cannot import \(part.name.rawValue) data: \(error)")
                } catch {
                    throw ExportError("Cannot import \(part.name.rawValue) data from \(part.folder.path): \(error)")
                }
            }
        }
    }
}
