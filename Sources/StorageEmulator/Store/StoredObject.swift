import Crypto
import EmulatorCore
import Foundation

/// An object's metadata as the store keeps it, with the blob holding its bytes. Both wire APIs (Firebase
/// v0 and the GCS JSON API) render it, and the rules see it as `resource` / `request.resource`; a data folder
/// keeps it as its `Codable` JSON.
struct StoredObject: Sendable, Equatable, Codable {
    /// The bucket.
    var bucket: String
    /// The object's name (any UTF-8; never used as a file path).
    var name: String
    /// The generation: microseconds since the epoch when this content was written (production's form).
    var generation: Int64
    /// Counts metadata changes of this generation, from 1.
    var metageneration: Int64 = 1
    var contentType: String?
    var contentEncoding: String?
    var contentDisposition: String?
    var contentLanguage: String?
    var cacheControl: String?
    var customTime: Date?
    /// Custom metadata (`metadata` on the wire), without the download tokens.
    var customMetadata: [String: String] = [:]
    /// Firebase download tokens (`downloadTokens`, `metadata.firebaseStorageDownloadTokens`).
    var downloadTokens: [String] = []
    var timeCreated: Date
    var updated: Date
    var storageClass = "STANDARD"
    /// How many objects a composed object was made of (GCS `componentCount`).
    var componentCount: Int?
    /// The bytes.
    var blob: Blob

    /// The object's size in bytes.
    var size: Int64 { blob.size }

    /// The MD5 digest, base64 (`md5Hash`).
    var md5Hash: String { Data(blob.md5).base64EncodedString() }

    /// The CRC-32C checksum, base64 of its big-endian bytes (`crc32c`, `x-goog-hash`).
    var crc32c: String { CRC32C(value: blob.crc32c).base64 }

    /// The entity tag: base64 of SHA-1 of `generation/metageneration`, as the official emulator derives it.
    var etag: String { ETag.of(generation: generation, metageneration: metageneration) }

    /// A new object of `blob`, created now with `metadata` (an upload's JSON metadata, if any).
    init(bucket: String, name: String, blob: Blob, metadata: JSONValue?, now: Date) {
        self.bucket = bucket
        self.name = name
        self.blob = blob
        generation = Int64((now.timeIntervalSince1970 * 1_000_000).rounded())
        timeCreated = now
        updated = now
        if let metadata { apply(metadata) }
    }

    /// Applies writable metadata fields (`contentType`, `contentEncoding`, `contentDisposition`,
    /// `contentLanguage`, `cacheControl`, `customTime`, `metadata`): a `null` removes the field or custom
    /// key; `metadata.firebaseStorageDownloadTokens` adds tokens (comma-separated). Other members are
    /// ignored, as production ignores output-only fields.
    mutating func apply(_ metadata: JSONValue) {
        guard case .object(let members) = metadata else { return }
        func text(_ key: String, _ field: WritableKeyPath<StoredObject, String?>) {
            guard let value = members[key] else { return }
            self[keyPath: field] = value.stringValue
        }
        text("contentType", \.contentType)
        text("contentEncoding", \.contentEncoding)
        text("contentDisposition", \.contentDisposition)
        text("contentLanguage", \.contentLanguage)
        text("cacheControl", \.cacheControl)
        if let value = members["customTime"] {
            customTime = value.stringValue.flatMap(Self.date(from:))
        }
        switch members["metadata"] {
        case .null?: customMetadata = [:]
        case .object(let custom)?:
            for (key, value) in custom {
                switch value {
                case .null: customMetadata[key] = nil
                case .string(let text): customMetadata[key] = text
                default: customMetadata[key] = value.serialized()
                }
            }
        default: break
        }
        if let tokens = customMetadata.removeValue(forKey: "firebaseStorageDownloadTokens") {
            for token in tokens.split(separator: ",").map(String.init) where !token.isEmpty && !downloadTokens.contains(token) {
                downloadTokens.append(token)
            }
        }
    }

    /// An RFC 3339 time, with or without fractional seconds, to the millisecond (what the JSON APIs and
    /// exports write back).
    static func date(from text: String) -> Date? {
        guard
            let parsed = (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
                ?? (try? Date.ISO8601FormatStyle().parse(text))
        else { return nil }
        // A quarter of a millisecond into its millisecond: the `Date` nearest a whole millisecond is often
        // just below it, which `iso8601WithMilliseconds` (it truncates) would write one millisecond early,
        // and each export and import would move the time back again.
        let milliseconds = (parsed.timeIntervalSince1970 * 1000 + 0.001).rounded(.down)
        return Date(timeIntervalSince1970: (milliseconds + 0.25) / 1000)
    }

    /// Records a metadata change made at `now`: `metageneration` + 1, `updated` now.
    mutating func touch(_ now: Date) {
        metageneration += 1
        updated = now
    }
}

/// Entity tags of objects.
enum ETag {
    /// base64(SHA-1("generation/metageneration")) without its padding.
    static func of(generation: Int64, metageneration: Int64) -> String {
        let digest = Insecure.SHA1.hash(data: Array("\(generation)/\(metageneration)".utf8))
        return String(Data(digest).base64EncodedString().dropLast())
    }
}
