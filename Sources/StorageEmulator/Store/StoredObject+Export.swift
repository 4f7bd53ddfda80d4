import EmulatorCore
import Foundation

extension StoredObject {
    /// The official emulator's stored metadata JSON, one `metadata/<disk name>.json` of an export
    /// (firebase-tools `StoredFileMetadata.toJSON`): numbers as numbers, `crc32c` in decimal, custom metadata
    /// as `customMetadata`.
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
        if let customTime { json["customTime"] = .string(customTime.iso8601WithMilliseconds) }
        if !customMetadata.isEmpty { json["customMetadata"] = .object(customMetadata.mapValues { .string($0) }) }
        return .object(json)
    }

    /// The object an export's metadata file describes (`exportJSON`, or what any firebase-tools version
    /// wrote), with the bytes of `blob`, which must match its `size` and, when it has them, its `md5Hash` and
    /// `crc32c`. What the file leaves out (or sets to `null`) takes firebase-tools' defaults: created `now`,
    /// updated when created, the generation from the creation time, metageneration 1, `STANDARD`, no tokens.
    /// Custom metadata that is not a string is kept as its JSON text, and `firebaseStorageDownloadTokens` in
    /// it become tokens, as in an upload. `etag` is not read: it follows from the generations, as it did when
    /// it was written.
    init(exportJSON json: JSONValue, blob: Blob, now: Date) throws(ExportedMetadataError) {
        guard let members = json.objectValue else { throw .notAnObject }
        let fields = ExportedFields(members: members)
        guard let bucket = try fields.string("bucket"), !bucket.isEmpty else { throw .field("bucket", "a bucket name") }
        guard let name = try fields.string("name"), !name.isEmpty else { throw .field("name", "an object name") }
        let timeCreated = try fields.date("timeCreated") ?? now
        self.init(bucket: bucket, name: name, blob: blob, metadata: nil, now: timeCreated)
        updated = try fields.date("updated") ?? timeCreated
        generation = try fields.int("generation") ?? generation
        metageneration = try fields.int("metageneration") ?? 1
        storageClass = try fields.string("storageClass") ?? storageClass
        contentType = try fields.string("contentType")
        contentEncoding = try fields.string("contentEncoding")
        contentDisposition = try fields.string("contentDisposition")
        contentLanguage = try fields.string("contentLanguage")
        cacheControl = try fields.string("cacheControl")
        customTime = try fields.date("customTime")
        switch members["downloadTokens"] {
        case nil, .null?: break
        case .array(let tokens)?:
            downloadTokens = try tokens.map { token throws(ExportedMetadataError) in
                guard let token = token.stringValue else { throw .field("downloadTokens", "an array of strings") }
                return token
            }
        default: throw .field("downloadTokens", "an array of strings")
        }
        switch members["customMetadata"] {
        case nil, .null?: break
        case .object(let custom)?: apply(["metadata": .object(custom)])
        default: throw .field("customMetadata", "an object of strings")
        }
        try check(blob, against: fields)
    }

    /// Throws unless `blob` has the `size`, and the `md5Hash` and `crc32c` if given, that `fields` declare.
    private func check(_ blob: Blob, against fields: ExportedFields) throws(ExportedMetadataError) {
        guard let size = try fields.int("size") else { throw .field("size", "the object's size in bytes") }
        guard blob.size == size else { throw .mismatch("size", blob: "\(blob.size) bytes", metadata: "\(size)") }
        if let md5Hash = try fields.string("md5Hash") {
            guard let digest = Data(base64Encoded: md5Hash) else { throw .field("md5Hash", "base64") }
            guard Array(digest) == blob.md5 else { throw .mismatch("MD5", blob: self.md5Hash, metadata: md5Hash) }
        }
        if let crc32c = try fields.string("crc32c") {
            guard let value = UInt32(crc32c) else { throw .field("crc32c", "a decimal unsigned 32-bit number") }
            guard value == blob.crc32c else { throw .mismatch("CRC-32C", blob: String(blob.crc32c), metadata: crc32c) }
        }
    }
}

/// What is wrong with an export's metadata file, or with its blob measured against it.
enum ExportedMetadataError: Error, CustomStringConvertible {
    /// The file holds JSON that is not an object.
    case notAnObject
    /// A member is missing or not what it should be: its name and what it should be.
    case field(String, String)
    /// The blob's bytes differ from what the file says: what was measured, the blob's value and the file's.
    case mismatch(String, blob: String, metadata: String)

    var description: String {
        switch self {
        case .notAnObject: return "is not a JSON object."
        case .field(let name, let expected): return "'\(name)' must be \(expected)."
        case .mismatch(let measure, let blob, let metadata): return "its \(measure) is \(blob), the metadata says \(metadata)."
        }
    }
}

/// Typed reads of a metadata file's members; `null` counts as absent (firebase-tools drops such fields).
private struct ExportedFields {
    let members: [String: JSONValue]

    func string(_ key: String) throws(ExportedMetadataError) -> String? {
        switch members[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw .field(key, "a string")
        }
    }

    func int(_ key: String) throws(ExportedMetadataError) -> Int64? {
        guard let value = members[key], value != .null else { return nil }
        guard let number = value.intValue, number >= 0 else { throw .field(key, "a whole number") }
        return number
    }

    func date(_ key: String) throws(ExportedMetadataError) -> Date? {
        guard let text = try string(key) else { return nil }
        guard let date = StoredObject.date(from: text) else { throw .field(key, "an RFC 3339 time") }
        return date
    }
}
