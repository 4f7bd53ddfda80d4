import CRenameExchange
import EmulatorCore
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where an export goes, checked before anything is written, and the staging folder beside it that is
/// swapped in when complete. An export never deletes anything but a previous export at the same place.
struct ExportTarget {
    /// The export folder, absolute and standardized.
    let url: URL

    /// The name of the file that marks a folder as an export.
    static let metadataFileName = "firebase-export-metadata.json"

    /// Checks `path` (relative to `workingDirectory`): it may not be the working directory or one of its
    /// parents (whose files an export would replace, firebase-tools #3600), nor an existing file, nor a
    /// folder holding anything but a previous export.
    init(path: String, workingDirectory: String = FileManager.default.currentDirectoryPath) throws(ExportError) {
        let base = URL(fileURLWithPath: workingDirectory, isDirectory: true)
        let url = URL(fileURLWithPath: path, relativeTo: base).standardizedFileURL.resolvingSymlinksInPath()
        let working = base.standardizedFileURL.resolvingSymlinksInPath()
        let folder = url.path.hasSuffix("/") ? url.path : url.path + "/"
        guard !(working.path + "/").hasPrefix(folder) else {
            throw ExportError(
                "Export path '\(path)' is the working directory or one of its parents; an export replaces its target, "
                    + "so choose a folder of its own (e.g. ./emulator-data).")
        }
        let files = FileManager.default
        var isFolder: ObjCBool = false
        if files.fileExists(atPath: url.path, isDirectory: &isFolder) {
            guard isFolder.boolValue else { throw ExportError("Export path '\(path)' is a file, not a folder.") }
            let contents = (try? files.contentsOfDirectory(atPath: url.path)) ?? []
            guard contents.isEmpty || contents.contains(Self.metadataFileName) else {
                throw ExportError(
                    "Export path '\(path)' is a folder that is not an emulator export (it has no \(Self.metadataFileName)); "
                        + "it is left as it is. Choose an empty or new folder.")
            }
        }
        self.url = url
    }

    /// A new, empty staging folder beside the target (same file system, so the swap is a rename).
    func makeStaging() throws -> URL {
        let staging = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).hearth-export-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        return staging
    }

    /// Puts the complete, synced `staging` folder in the target's place: an atomic exchange (`renameat2`) with
    /// a previous export, which is removed afterwards (two renames where the file system cannot exchange).
    /// Until then, the previous export is untouched.
    func swapIn(_ staging: URL) throws {
        let files = FileManager.default
        guard files.fileExists(atPath: url.path) else {
            try files.moveItem(at: staging, to: url)
            try DurableFile.sync(url.deletingLastPathComponent())
            return
        }
        if hearth_rename_exchange(staging.path, url.path) != 0 {
            // File systems without the exchange (some NFS and FUSE mounts, overlayfs lower layers): move the
            // previous export aside, move the new one in, and put the previous one back if that fails.
            let aside = staging.deletingLastPathComponent().appendingPathComponent(staging.lastPathComponent + "-previous")
            do {
                try files.moveItem(at: url, to: aside)
            } catch {
                throw ExportError("cannot replace '\(url.path)': \(error.localizedDescription)")
            }
            do {
                try files.moveItem(at: staging, to: url)
            } catch {
                try? files.moveItem(at: aside, to: url)
                throw ExportError("cannot replace '\(url.path)': \(error.localizedDescription)")
            }
            try DurableFile.sync(url.deletingLastPathComponent())
            try? files.removeItem(at: aside)
            return
        }
        try DurableFile.sync(url.deletingLastPathComponent())
        // The staging name now holds the previous export.
        try? files.removeItem(at: staging)
    }
}

/// An export or import that cannot be done; the message says why in one line.
public struct ExportError: Error, Sendable, CustomStringConvertible {
    /// The reason.
    public var message: String

    init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
