import EmulatorCore
import Foundation

/// Reads an official `storage_export/` folder into the store (firebase-tools `StorageLayer.import`):
/// `buckets.json` names the buckets; each `*.json` file anywhere under `metadata/` describes one object,
/// whose bytes are at the same relative path under `blobs/` without the `.json`. That pairing reads every
/// layout firebase-tools has written: `blobs/<uuid>`, the older flattened `blobs/<bucket>%2F<name>` and the
/// nested `blobs/<bucket>/<path>`. Without `metadata/` there are no objects, only buckets.
///
/// Unlike firebase-tools, which warns and skips a bad object, the import is all or nothing: every blob is
/// copied into the store's directory (a new file, streamed) and checked against its metadata first, and
/// only then are the buckets and objects added, in one step. A missing or corrupt file throws `ImportError`
/// naming it, after the blobs copied so far are removed. Objects already in the store stay unless the
/// import holds one of the same name, which replaces them (firebase-tools imports into an empty emulator).
struct StorageImport {
    let store: ObjectStore
    /// When objects without `timeCreated` were created, and buckets new to the store.
    let now: Date

    /// Imports `folder`, counting each object into `progress` as its blob is copied.
    func read(from folder: URL, progress: TransferProgress) async throws {
        let buckets = try readBuckets(folder.appendingPathComponent("buckets.json"))
        var objects: [StoredObject] = []
        do {
            for relative in metadataFiles(in: folder.appendingPathComponent("metadata")) {
                try Task.checkCancellation()
                let object = try await readObject(relative, in: folder)
                objects.append(object)
                progress.add(items: 1, bytes: Int(object.size))
            }
        } catch {
            for object in objects { store.discard(object.blob) }
            throw error
        }
        try store.add(importedBuckets: buckets, objects: objects, now: now)
    }

    /// The bucket ids of `buckets.json`, `{"buckets":[{"id":...}]}`.
    private func readBuckets(_ file: URL) throws -> [String] {
        let buckets = try Self.json(of: file)["buckets"]?.arrayValue?.map { $0["id"]?.stringValue }
        guard let buckets, !buckets.contains(where: { $0?.isEmpty ?? true }) else {
            throw ImportError(file: file.path, #"must be {"buckets":[{"id":"<bucket>"},...]}."#)
        }
        return buckets.compactMap { $0 }
    }

    /// The paths of the `.json` files under `folder`, relative to it, in order; none if it does not exist.
    private func metadataFiles(in folder: URL) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var names: [String] = []
        while let relative = walker.nextObject() as? String {
            guard relative.hasSuffix(".json"), relative.count > ".json".count else { continue }
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent(relative).path, isDirectory: &isFolder),
                !isFolder.boolValue
            {
                names.append(relative)
            }
        }
        return names.sorted()
    }

    /// The object that `metadata/<relative>` describes, its blob copied into the store and checked.
    private func readObject(_ relative: String, in folder: URL) async throws -> StoredObject {
        let metadataFile = folder.appendingPathComponent("metadata").appendingPathComponent(relative)
        let blobFile = folder.appendingPathComponent("blobs").appendingPathComponent(String(relative.dropLast(".json".count)))
        let json = try Self.json(of: metadataFile)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: blobFile.path, isDirectory: &isFolder), !isFolder.boolValue,
            let reader = BlobReader(file: blobFile)
        else {
            throw ImportError(file: blobFile.path, "is missing: it should hold the bytes of the object \(metadataFile.path) describes.")
        }
        let blob = try await store.copy(from: reader)
        do throws(ExportedMetadataError) {
            var object = try StoredObject(exportJSON: json, blob: blob, now: now)
            // firebase-tools on Windows, before blobs were named by UUID, wrote a name's `/` as `\` (its disk
            // names then were `<bucket>%5C<path>`); as firebase-tools does, they are turned back.
            if relative.hasPrefix("\(object.bucket)%5C") {
                object.name = object.name.replacingOccurrences(of: "\\", with: "/")
            }
            return object
        } catch {
            store.discard(blob)
            switch error {
            case .mismatch: throw ImportError(file: blobFile.path, "does not match \(metadataFile.path): \(error)")
            case .notAnObject, .field: throw ImportError(file: metadataFile.path, error.description)
            }
        }
    }

    /// The JSON in `file`.
    private static func json(of file: URL) throws -> JSONValue {
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw ImportError(file: file.path, "is missing or cannot be read.")
        }
        do {
            return try JSONValue.parse(data)
        } catch {
            throw ImportError(file: file.path, "is not valid JSON: \(error)")
        }
    }
}
