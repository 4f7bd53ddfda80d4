import EmulatorCore
import Foundation
import NIOCore
import Synchronization

/// An object name as its UTF-8 bytes: the store's key.
struct ObjectKey: Hashable, Sendable {
    let bytes: [UInt8]

    init(_ name: String) { bytes = Array(name.utf8) }
}

/// Every bucket and object of the Storage emulator, in memory, with the objects' bytes as files in a
/// directory of their own (so a 1 GiB object never sits in memory). Changes are atomic: an object is
/// replaced or removed in one step under the lock, after its new bytes are complete on disk; the replaced
/// bytes' file is removed then (a download already reading it keeps its open file).
///
/// With a data folder (`durable`), the blobs are files in its `storage/` subfolder, and every change to a bucket
/// or an object is written there (`DurableObjects`) under the lock, before it is made in memory; a change the
/// folder refuses is not made, and throws.
final class ObjectStore: Sendable {
    /// A bucket as the GCS JSON API lists it.
    struct Bucket: Sendable, Equatable, Codable {
        var name: String
        var timeCreated: Date
        var updated: Date
    }

    private struct State {
        var buckets: [String: Bucket] = [:]
        /// Objects by bucket, then by their names' bytes: names that Swift would call equal (canonically
        /// equivalent Unicode, NFC and NFD) are different objects, as in Cloud Storage.
        var objects: [String: [ObjectKey: StoredObject]] = [:]
        /// Blobs checkpoints hold, with how many hold each: their files stay when their objects go.
        var pinned: [String: Int] = [:]
    }

    /// The buckets and objects at one moment, for a checkpoint (values: nothing is copied).
    struct Checkpoint: Sendable {
        fileprivate var buckets: [String: Bucket]
        fileprivate var objects: [String: [ObjectKey: StoredObject]]
    }

    /// Where blobs are kept.
    let directory: URL
    private let state: Mutex<State>
    /// Where every change is written before it is made (`--data-dir`), if anywhere.
    private let durable: (any DurableStore)?

    /// The prefix of the blob directories' names in the temporary directory: `hearth-storage-<pid>-<uuid>`.
    static let directoryPrefix = "hearth-storage-"

    /// A store holding what `durable` kept, its blobs in the data folder's `storage/` subfolder (the files there
    /// that no object uses are removed); without `durable`, an empty store whose blobs go to a new temporary
    /// directory (directories that processes killed before they could remove theirs left behind, by `kill -9`,
    /// are removed first).
    init(durable: (any DurableStore)? = nil) throws {
        self.durable = durable
        guard let durable else {
            let temporary = FileManager.default.temporaryDirectory
            Self.removeAbandonedDirectories(in: temporary)
            directory = temporary.appendingPathComponent("\(Self.directoryPrefix)\(getpid())-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            state = Mutex(State())
            return
        }
        directory = URL(fileURLWithPath: durable.filesFolder).appendingPathComponent(DurableObjects.folder)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let (buckets, objects) = try DurableObjects.load(from: durable)
        try DurableObjects.removeUnusedBlobs(in: directory, objects: objects)
        state = Mutex(State(buckets: buckets, objects: objects))
    }

    /// Removes the blob directories in `temporary` whose process no longer runs.
    static func removeAbandonedDirectories(in temporary: URL) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: temporary.path) else { return }
        for name in names where name.hasPrefix(directoryPrefix) {
            guard let pid = owner(ofDirectory: name), kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
        }
    }

    /// The process id in a blob directory's name, if it has one.
    static func owner(ofDirectory name: String) -> pid_t? {
        name.dropFirst(directoryPrefix.count).split(separator: "-", maxSplits: 1).first.flatMap { pid_t($0) }
    }

    deinit {
        // A data folder's blobs stay for the next start.
        if durable == nil { try? FileManager.default.removeItem(at: directory) }
    }

    /// Writes `changes` to the data folder, if there is one (they are made only then).
    private func persist(_ changes: () throws(DurableStoreError) -> [DurableChange]) throws(DurableStoreError) {
        guard let durable else { return }
        let changes = try changes()
        if !changes.isEmpty { try durable.write(changes) }
    }

    // MARK: Buckets

    /// Bucket `name`, created now if it does not exist (every Firebase request creates its bucket).
    @discardableResult
    func ensureBucket(_ name: String, now: Date = Date()) throws(DurableStoreError) -> Bucket {
        try state.withLock { (state: inout State) throws(DurableStoreError) -> Bucket in
            if let bucket = state.buckets[name] { return bucket }
            let bucket = Bucket(name: name, timeCreated: now, updated: now)
            try persist { () throws(DurableStoreError) in [try DurableObjects.entry(for: bucket)] }
            state.buckets[name] = bucket
            return bucket
        }
    }

    /// Bucket `name`, if it exists.
    func bucket(_ name: String) -> Bucket? {
        state.withLock { $0.buckets[name] }
    }

    /// Every bucket, by name.
    var buckets: [Bucket] {
        state.withLock { $0.buckets.values.sorted { $0.name < $1.name } }
    }

    /// Removes bucket `name` if it has no objects; `false` if it has.
    func deleteBucket(_ name: String) throws(DurableStoreError) -> Bool {
        try state.withLock { (state: inout State) throws(DurableStoreError) -> Bool in
            guard state.objects[name]?.isEmpty ?? true else { return false }
            try persist { [DurableObjects.removal(ofBucket: name)] }
            state.buckets[name] = nil
            state.objects[name] = nil
            return true
        }
    }

    // MARK: Objects

    /// Object `name` of `bucket`, if it exists.
    func object(_ bucket: String, _ name: String) -> StoredObject? {
        state.withLock { $0.objects[bucket]?[ObjectKey(name)] }
    }

    /// Stores `object` (a new generation) in place of whatever had its name. `check` sees the object it
    /// replaces, under the lock, and may refuse by throwing; then (as when the data folder refuses the change)
    /// nothing changes and the new blob is removed.
    @discardableResult
    func put(_ object: StoredObject, check: (StoredObject?) throws -> Void = { _ in }) throws -> StoredObject {
        let replaced: StoredObject?
        do {
            replaced = try state.withLock { state -> StoredObject? in
                try check(state.objects[object.bucket]?[ObjectKey(object.name)])
                return try insert([object], into: &state).first
            }
        } catch {
            removeBlob(object.blob)
            throw error
        }
        if let replaced, replaced.blob.id != object.blob.id { removeBlob(replaced.blob) }
        return object
    }

    /// Adds an import in one step: `buckets` (those missing are created `now`) and `objects`, each in place
    /// of whatever had its name (an earlier one of `objects` too); the replaced objects' blobs are removed.
    /// Objects of other names stay. The objects' blobs are new files of this store; if the data folder refuses
    /// the import, nothing changes and they are removed.
    func add(importedBuckets buckets: [String], objects: [StoredObject], now: Date) throws(DurableStoreError) {
        let replaced: [StoredObject]
        do {
            replaced = try state.withLock { (state: inout State) throws(DurableStoreError) -> [StoredObject] in
                let created = buckets.map { Bucket(name: $0, timeCreated: now, updated: now) }
                return try insert(objects, creating: created, into: &state)
            }
        } catch {
            for object in objects { removeBlob(object.blob) }
            throw error
        }
        // Every imported blob is a new file: none of the replaced objects' blobs is still in use.
        for object in replaced { removeBlob(object.blob) }
    }

    /// Puts `objects` into `state`, each in place of whatever had its name, after the `buckets` missing and those
    /// the objects need (made when the object was updated); the objects they replace. With a data folder, all of
    /// it is written there first, in one batch.
    private func insert(
        _ objects: [StoredObject], creating buckets: [Bucket] = [], into state: inout State
    ) throws(DurableStoreError) -> [StoredObject] {
        var created: [String: Bucket] = [:]
        for bucket in buckets where state.buckets[bucket.name] == nil && created[bucket.name] == nil {
            created[bucket.name] = bucket
        }
        for object in objects where state.buckets[object.bucket] == nil && created[object.bucket] == nil {
            created[object.bucket] = Bucket(name: object.bucket, timeCreated: object.updated, updated: object.updated)
        }
        try persist { () throws(DurableStoreError) in
            try created.values.map { bucket throws(DurableStoreError) in try DurableObjects.entry(for: bucket) }
                + objects.map { object throws(DurableStoreError) in try DurableObjects.entry(for: object) }
        }
        state.buckets.merge(created) { existing, _ in existing }
        return objects.compactMap { state.objects[$0.bucket, default: [:]].updateValue($0, forKey: ObjectKey($0.name)) }
    }

    /// Changes object `name` of `bucket` with `change` (which may throw to change nothing, as does a data folder
    /// that refuses the change); `nil` if there is no such object.
    func update(_ bucket: String, _ name: String, _ change: (inout StoredObject) throws -> Void) throws -> StoredObject? {
        try state.withLock { state in
            guard var object = state.objects[bucket]?[ObjectKey(name)] else { return nil }
            try change(&object)
            try persist { () throws(DurableStoreError) in [try DurableObjects.entry(for: object)] }
            state.objects[bucket]?[ObjectKey(name)] = object
            return object
        }
    }

    /// Removes object `name` of `bucket` after `check` (which may throw) approves it and the data folder, if
    /// any, has recorded it; the removed object, or `nil` if there was none.
    @discardableResult
    func delete(_ bucket: String, _ name: String, check: (StoredObject) throws -> Void = { _ in }) throws -> StoredObject? {
        let removed = try state.withLock { state -> StoredObject? in
            guard let object = state.objects[bucket]?[ObjectKey(name)] else { return nil }
            try check(object)
            try persist { [DurableObjects.removal(of: bucket, name)] }
            state.objects[bucket]?[ObjectKey(name)] = nil
            return object
        }
        if let removed { removeBlob(removed.blob) }
        return removed
    }

    /// One page of a listing: objects whose names start with `prefix`, in name order after `pageToken` (the
    /// last name of the previous page); with a `delimiter`, names with it after the prefix are rolled up
    /// into `prefixes` (each up to and including the delimiter). At most `maxResults` objects and prefixes
    /// together; `nextPageToken` when there are more.
    func list(
        _ bucket: String, prefix: String, delimiter: String?, pageToken: String?, maxResults: Int
    ) -> (objects: [StoredObject], prefixes: [String], nextPageToken: String?) {
        let objects = state.withLock { state in
            (state.objects[bucket] ?? [:]).values.filter { $0.name.utf8.starts(with: prefix.utf8) }
        }.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        var items: [StoredObject] = []
        var prefixes: [String] = []
        var lastKey: String?
        for object in objects {
            // A name is listed as itself, or as its prefix up to the delimiter: its key in the listing
            // (compared byte by byte, never as Unicode-equivalent strings).
            var key = object.name
            var rolledUp = false
            if let delimiter, !delimiter.isEmpty {
                let bytes = Array(object.name.utf8)
                if let end = Self.end(of: Array(delimiter.utf8), in: bytes, from: prefix.utf8.count) {
                    key = String(decoding: bytes[..<end], as: UTF8.self)
                    rolledUp = true
                }
            }
            if let pageToken, !pageToken.utf8.lexicographicallyPrecedes(key.utf8) { continue }
            if let lastKey, key.utf8.elementsEqual(lastKey.utf8) { continue }
            if items.count + prefixes.count == maxResults { return (items, prefixes, lastKey) }
            if rolledUp { prefixes.append(key) } else { items.append(object) }
            lastKey = key
        }
        return (items, prefixes, nil)
    }

    /// The index just past the first `needle` in `bytes` at or after `start`.
    private static func end(of needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, bytes.count >= needle.count else { return nil }
        var index = start
        while index + needle.count <= bytes.count {
            if bytes[index..<(index + needle.count)].elementsEqual(needle) { return index + needle.count }
            index += 1
        }
        return nil
    }

    /// Every bucket and object at one instant (what an export writes), objects in bucket and name order.
    var snapshot: (buckets: [Bucket], objects: [StoredObject]) {
        let (buckets, objects) = state.withLock { state in
            (Array(state.buckets.values), state.objects.values.flatMap(\.values))
        }
        return (
            buckets.sorted { $0.name < $1.name },
            objects.sorted {
                $0.bucket == $1.bucket ? $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) : $0.bucket < $1.bucket
            }
        )
    }

    /// Every bucket and object now; their blobs are kept (pinned) until the checkpoint is released.
    func checkpoint() -> Checkpoint {
        state.withLock { state in
            for objects in state.objects.values {
                for object in objects.values { state.pinned[object.blob.id, default: 0] += 1 }
            }
            return Checkpoint(buckets: state.buckets, objects: state.objects)
        }
    }

    /// Lets go of `checkpoint`'s blobs: those no other checkpoint holds and no object uses are removed.
    func release(_ checkpoint: Checkpoint) {
        let unused = state.withLock { state -> [Blob] in
            var freed: [Blob] = []
            for objects in checkpoint.objects.values {
                for object in objects.values {
                    let count = (state.pinned[object.blob.id] ?? 1) - 1
                    state.pinned[object.blob.id] = count > 0 ? count : nil
                    if count <= 0 { freed.append(object.blob) }
                }
            }
            let inUse = Set(state.objects.values.flatMap { $0.values.map(\.blob.id) })
            return freed.filter { !inUse.contains($0.id) }
        }
        for blob in unused { removeBlob(blob) }
    }

    /// Brings back the buckets and objects of `checkpoint`; the blobs only the replaced objects used are removed.
    /// With a data folder, the buckets and objects that differ are written there first.
    func restore(_ checkpoint: Checkpoint) throws(DurableStoreError) {
        let unused = try state.withLock { (state: inout State) throws(DurableStoreError) -> [Blob] in
            try persist { () throws(DurableStoreError) in
                try DurableObjects.changes(
                    from: (state.buckets, state.objects), to: (checkpoint.buckets, checkpoint.objects))
            }
            let kept = Set(checkpoint.objects.values.flatMap { $0.values.map(\.blob.id) })
            let replaced = state.objects.values.flatMap { $0.values.map(\.blob) }
            state.buckets = checkpoint.buckets
            state.objects = checkpoint.objects
            return replaced.filter { !kept.contains($0.id) }
        }
        for blob in unused { removeBlob(blob) }
    }

    /// Removes every object and bucket (the blobs checkpoints hold stay).
    func reset() throws(DurableStoreError) {
        let blobs = try state.withLock { (state: inout State) throws(DurableStoreError) -> [Blob] in
            try persist { [.deleteSpace(DurableObjects.space)] }
            defer { state = State(pinned: state.pinned) }
            return state.objects.values.flatMap { $0.values.map(\.blob) }
        }
        for blob in blobs { removeBlob(blob) }
    }

    // MARK: Blobs

    /// A writer for a new blob.
    func newBlob() throws -> BlobWriter {
        try BlobWriter(directory: directory)
    }

    /// A reader of `blob`; `nil` if its file is gone.
    func reader(of blob: Blob) -> BlobReader? {
        BlobReader(file: directory.appendingPathComponent(blob.id))
    }

    /// Copies `blob` into a new blob (copy, rewrite).
    func copy(_ blob: Blob) async throws -> Blob {
        guard let reader = reader(of: blob) else { throw BlobError.cannotRead(ENOENT) }
        return try await copy(from: reader)
    }

    /// Copies what `reader` holds into a new blob (copy, import).
    func copy(from reader: BlobReader) async throws -> Blob {
        let writer = try newBlob()
        do {
            try await writer.append(contentsOf: reader)
            return try await writer.finish()
        } catch {
            writer.discard()
            throw error
        }
    }

    /// Appends `blob`'s bytes to `writer` (compose).
    func append(_ blob: Blob, to writer: BlobWriter) async throws {
        guard let reader = reader(of: blob) else { throw BlobError.cannotRead(ENOENT) }
        try await writer.append(contentsOf: reader)
    }

    /// Removes `blob`, which no object uses (a refused upload's).
    func discard(_ blob: Blob) { removeBlob(blob) }

    private func removeBlob(_ blob: Blob) {
        guard state.withLock({ $0.pinned[blob.id] == nil }) else { return }
        try? FileManager.default.removeItem(at: directory.appendingPathComponent(blob.id))
    }
}
