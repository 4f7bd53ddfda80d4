import EmulatorCore
import Foundation

/// Writes the store in the official emulator's export layout (`storage_export/`, firebase-tools
/// `StorageLayer.export`): `buckets.json` (`{"buckets":[{"id"}]}`), each object's bytes in
/// `blobs/<disk name>` and its metadata in `metadata/<disk name>.json` (`StoredObject.exportJSON`). Disk
/// names are the blobs' ids (UUIDs, as firebase-tools' own). `blobs/` and `metadata/` are there even when
/// empty.
struct StorageExport {
    let store: ObjectStore

    /// Why an export is refused.
    enum Refusal: Error, CustomStringConvertible {
        /// The folder exists and holds something.
        case notEmpty(String)

        var description: String {
            switch self {
            case .notEmpty(let path): return "Export path '\(path)' already exists and is not an empty folder."
            }
        }
    }

    /// Exports into `directory`, which must not exist or be an empty folder (`POST /internal/export`).
    /// Written to a temporary folder beside it and moved into place, so a failed export leaves what was
    /// there. An export never deletes or overwrites anything: the endpoint can be called by any local process.
    func write(to directory: URL) throws {
        let files = FileManager.default
        if files.fileExists(atPath: directory.path) {
            guard (try? files.contentsOfDirectory(atPath: directory.path))?.isEmpty == true else {
                throw Refusal.notEmpty(directory.path)
            }
        }
        let staging = directory.deletingLastPathComponent()
            .appendingPathComponent(".\(directory.lastPathComponent).hearth-\(UUID().uuidString)")
        try files.createDirectory(at: staging, withIntermediateDirectories: true)
        do {
            try write(into: staging, progress: TransferProgress())
            // rmdir(2) removes only an empty folder: what appeared in it meanwhile stays, and the move fails.
            if files.fileExists(atPath: directory.path), rmdir(directory.path) != 0 {
                throw Refusal.notEmpty(directory.path)
            }
            try files.moveItem(at: staging, to: directory)
        } catch {
            try? files.removeItem(at: staging)
            throw error
        }
    }

    /// Writes the layout into `folder`, which exists and is empty, from one snapshot of the store, counting
    /// each object into `progress`. Bytes are copied file to file, never held in memory. An object replaced
    /// while the export runs is written as its newer version; one deleted meanwhile is left out.
    func write(into folder: URL, progress: TransferProgress) throws {
        let files = FileManager.default
        let blobs = folder.appendingPathComponent("blobs")
        let metadata = folder.appendingPathComponent("metadata")
        try files.createDirectory(at: blobs, withIntermediateDirectories: false)
        try files.createDirectory(at: metadata, withIntermediateDirectories: false)
        let snapshot = store.snapshot
        let buckets: JSONValue = ["buckets": .array(snapshot.buckets.map { ["id": .string($0.name)] })]
        try Data(buckets.serialized().utf8).write(to: folder.appendingPathComponent("buckets.json"))
        for object in snapshot.objects {
            try Task.checkCancellation()
            guard let written = try copyBlob(of: object, into: blobs) else { continue }
            try Data(written.exportJSON.serialized().utf8)
                .write(to: metadata.appendingPathComponent("\(written.blob.id).json"))
            progress.add(items: 1, bytes: Int(written.size))
        }
    }

    /// Copies the blob of `object` into `folder`; the object whose blob was copied (a newer version if
    /// `object` was replaced since the snapshot), or `nil` if it was deleted since.
    private func copyBlob(of object: StoredObject, into folder: URL) throws -> StoredObject? {
        var current = object
        while true {
            let source = store.directory.appendingPathComponent(current.blob.id)
            do {
                try FileManager.default.copyItem(at: source, to: folder.appendingPathComponent(current.blob.id))
                return current
            } catch {
                // A blob's file goes only when its object is replaced or deleted.
                guard !FileManager.default.fileExists(atPath: source.path) else { throw error }
                guard let newer = store.object(current.bucket, current.name) else { return nil }
                guard newer.blob.id != current.blob.id else { throw error }
                current = newer
            }
        }
    }
}
