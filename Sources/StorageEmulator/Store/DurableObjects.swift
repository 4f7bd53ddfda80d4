import EmulatorCore
import Foundation

/// How the Storage emulator's buckets and objects sit in a data folder (`--data-dir`): one space, `storage`, with
/// `bucket/<bucket>` for each bucket and `object/<bucket>/<name>` for each object (bucket and name percent-encoded,
/// at least `/`, `%` and control characters, so every key names one object), each holding the `Codable` JSON of the
/// bucket or of the `StoredObject` (all its metadata, and its blob's id, size and checksums). The objects' bytes are
/// files in the folder's `storage/` subfolder, named by blob id; a blob's file is complete before the entry that
/// names it is written, and removed only after that entry is changed or gone.
enum DurableObjects {
    /// The space.
    static let space = "storage"
    /// The subfolder of the data folder that holds the blobs.
    static let folder = "storage"
    private static let bucketPrefix = "bucket/"
    private static let objectPrefix = "object/"

    /// The entry that records `bucket`.
    static func entry(for bucket: ObjectStore.Bucket) throws(DurableStoreError) -> DurableChange {
        .put(space: space, key: bucketPrefix + DurableName.segment(bucket.name), value: try encode(bucket, named: bucket.name))
    }

    /// The entry that records `object`.
    static func entry(for object: StoredObject) throws(DurableStoreError) -> DurableChange {
        .put(space: space, key: key(object.bucket, object.name), value: try encode(object, named: object.name))
    }

    /// The removal of bucket `name`'s entry.
    static func removal(ofBucket name: String) -> DurableChange {
        .delete(space: space, key: bucketPrefix + DurableName.segment(name))
    }

    /// The removal of the entry of object `name` of `bucket`.
    static func removal(of bucket: String, _ name: String) -> DurableChange {
        .delete(space: space, key: key(bucket, name))
    }

    /// The changes that take the folder from the buckets and objects of `old` to those of `new` (a checkpoint
    /// restore).
    static func changes(
        from old: (buckets: [String: ObjectStore.Bucket], objects: [String: [ObjectKey: StoredObject]]),
        to new: (buckets: [String: ObjectStore.Bucket], objects: [String: [ObjectKey: StoredObject]])
    ) throws(DurableStoreError) -> [DurableChange] {
        var changes: [DurableChange] = []
        for (name, bucket) in new.buckets where old.buckets[name] != bucket {
            changes.append(try entry(for: bucket))
        }
        for (bucket, objects) in new.objects {
            let before = old.objects[bucket] ?? [:]
            for (key, object) in objects where before[key] != object { changes.append(try entry(for: object)) }
        }
        for (bucket, objects) in old.objects {
            let after = new.objects[bucket] ?? [:]
            for (key, object) in objects where after[key] == nil { changes.append(removal(of: bucket, object.name)) }
        }
        for name in old.buckets.keys where new.buckets[name] == nil { changes.append(removal(ofBucket: name)) }
        return changes
    }

    private static func key(_ bucket: String, _ name: String) -> String {
        objectPrefix + DurableName.segment(bucket) + "/" + DurableName.segment(name)
    }

    private static func encode(_ value: some Encodable, named name: String) throws(DurableStoreError) -> [UInt8] {
        do {
            return Array(try JSONEncoder().encode(value))
        } catch {
            throw DurableStoreError("\(name) cannot be encoded: \(error)")
        }
    }

    /// The buckets and objects `durable` holds, by bucket name and, for objects, by name within their bucket.
    static func load(from durable: any DurableStore) throws(DurableStoreError) -> (
        buckets: [String: ObjectStore.Bucket], objects: [String: [ObjectKey: StoredObject]]
    ) {
        var buckets: [String: ObjectStore.Bucket] = [:]
        var objects: [String: [ObjectKey: StoredObject]] = [:]
        let decoder = JSONDecoder()
        do {
            // `bucket/` sorts before `object/`: an object's bucket is known when the object is read.
            try durable.scan(space) { key, bytes in
                if key.hasPrefix(bucketPrefix) {
                    let bucket = try decoder.decode(ObjectStore.Bucket.self, from: Data(bytes))
                    buckets[bucket.name] = bucket
                } else if key.hasPrefix(objectPrefix) {
                    let object = try decoder.decode(StoredObject.self, from: Data(bytes))
                    guard buckets[object.bucket] != nil else {
                        throw DurableStoreError("\(key): an object of a bucket with no entry")
                    }
                    // Blob ids name files: only the ids blobs are made with may lead to one.
                    guard UUID(uuidString: object.blob.id) != nil else {
                        throw DurableStoreError("\(key): '\(object.blob.id)' is not a blob id")
                    }
                    objects[object.bucket, default: [:]][ObjectKey(object.name)] = object
                } else {
                    throw DurableStoreError("\(key): not a Storage entry")
                }
            }
        } catch let error as DurableStoreError {
            throw DurableStoreError("\(space): \(error.message)")
        } catch {
            throw DurableStoreError("\(space): \(error)")
        }
        return (buckets, objects)
    }

    /// Removes the blob files of `directory` that are no object's blob: uploads in progress and the replaced or
    /// deleted objects' blobs when the process ended (blobs only checkpoints held go too: checkpoints do not outlive
    /// it). Only files named as blobs are (a blob id); anything else in the folder is left alone.
    static func removeUnusedBlobs(in directory: URL, objects: [String: [ObjectKey: StoredObject]]) throws {
        let used = Set(objects.values.flatMap { $0.values.map(\.blob.id) })
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path)
        where !used.contains(name) && UUID(uuidString: name) != nil {
            let file = directory.appendingPathComponent(name)
            guard (try? file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            try FileManager.default.removeItem(at: file)
        }
    }
}
