import EmulatorCore
import Foundation

/// Writes the store in the official emulator's export layout (`storage_export/`): `buckets.json`
/// (`{"buckets":[{"id"}]}`), each object's bytes in `blobs/<disk name>` and its metadata in
/// `metadata/<disk name>.json` (the official `StoredFileMetadata` JSON). Written to a temporary directory
/// and moved into place, so a failed export leaves what was there. Only a new or empty folder is written:
/// an export never deletes or overwrites anything (the endpoint can be called by any local process).
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

    /// Exports into `directory`, which must not exist or be an empty folder.
    func write(to directory: URL) throws {
        let files = FileManager.default
        if files.fileExists(atPath: directory.path) {
            guard (try? files.contentsOfDirectory(atPath: directory.path))?.isEmpty == true else {
                throw Refusal.notEmpty(directory.path)
            }
        }
        let staging = directory.deletingLastPathComponent()
            .appendingPathComponent(".\(directory.lastPathComponent).hearth-\(UUID().uuidString)")
        try files.createDirectory(at: staging.appendingPathComponent("blobs"), withIntermediateDirectories: true)
        try files.createDirectory(at: staging.appendingPathComponent("metadata"), withIntermediateDirectories: true)
        do {
            let buckets: JSONValue = ["buckets": .array(store.buckets.map { ["id": .string($0.name)] })]
            try Data(buckets.serialized().utf8).write(to: staging.appendingPathComponent("buckets.json"))
            for bucket in store.buckets {
                var pageToken: String?
                repeat {
                    let page = store.list(bucket.name, prefix: "", delimiter: nil, pageToken: pageToken, maxResults: 1000)
                    for object in page.objects {
                        try files.copyItem(
                            at: store.directory.appendingPathComponent(object.blob.id),
                            to: staging.appendingPathComponent("blobs").appendingPathComponent(object.blob.id))
                        try Data(object.exportJSON.serialized().utf8).write(
                            to: staging.appendingPathComponent("metadata").appendingPathComponent("\(object.blob.id).json"))
                    }
                    pageToken = page.nextPageToken
                } while pageToken != nil
            }
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
}

extension StoredObject {
    /// The official emulator's stored metadata JSON (numbers as numbers, `crc32c` in decimal).
    var exportJSON: JSONValue {
        var json: [String: JSONValue] = [
            "name": .string(name), "bucket": .string(bucket), "generation": .int(generation),
            "metageneration": .int(metageneration), "contentType": .string(contentType ?? "application/octet-stream"),
            "timeCreated": .string(timeCreated.iso8601WithMilliseconds), "updated": .string(updated.iso8601WithMilliseconds),
            "storageClass": .string(storageClass), "size": .int(size), "md5Hash": .string(md5Hash),
            "crc32c": .string(String(blob.crc32c)), "etag": .string(etag),
            "downloadTokens": .array(downloadTokens.map { .string($0) }),
        ]
        for (key, value) in [
            ("contentEncoding", contentEncoding), ("contentDisposition", contentDisposition),
            ("contentLanguage", contentLanguage), ("cacheControl", cacheControl),
        ] {
            if let value { json[key] = .string(value) }
        }
        if !customMetadata.isEmpty { json["customMetadata"] = .object(customMetadata.mapValues { .string($0) }) }
        return .object(json)
    }
}
