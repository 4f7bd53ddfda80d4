import EmulatorCore
import Foundation

/// An object's metadata, as the Firebase v0 API reports it; or, made with `init(contentType:...)`, the
/// metadata to upload an object with or to update.
public struct StorageMetadata: Sendable {
    /// The bucket (empty for metadata made here).
    public internal(set) var bucket = ""
    /// The object's path from the bucket's root (empty for metadata made here).
    public internal(set) var fullPath = ""
    /// The size in bytes.
    public internal(set) var size = 0
    /// The MIME type (`application/octet-stream` when the upload named none).
    public var contentType: String?
    /// `Cache-Control` for downloads.
    public var cacheControl: String?
    /// `Content-Disposition` for downloads (`inline` unless the upload set one).
    public var contentDisposition: String?
    /// The custom metadata (`metadata` on the wire).
    public var customMetadata: [String: String] = [:]
    /// The base64 MD5 digest of the contents.
    public internal(set) var md5Hash: String?
    /// The version of the contents (a new one with each upload).
    public internal(set) var generation: Int64 = 0
    /// The version of the metadata at this generation (1 after an upload, + 1 with each update).
    public internal(set) var metageneration: Int64 = 0
    /// When this generation was uploaded.
    public internal(set) var timeCreated: Date?
    /// When the metadata last changed.
    public internal(set) var updated: Date?
    /// The tokens that download the object without rules (`downloadTokens`, comma-separated on the wire).
    public internal(set) var downloadTokens: [String] = []
    /// The metadata as the server sent it: an update removes the fields and custom keys removed since.
    var received: [String: JSONValue] = [:]

    /// Metadata to upload or update an object with.
    public init(
        contentType: String? = nil, customMetadata: [String: String] = [:], cacheControl: String? = nil,
        contentDisposition: String? = nil
    ) {
        self.contentType = contentType
        self.customMetadata = customMetadata
        self.cacheControl = cacheControl
        self.contentDisposition = contentDisposition
    }

    /// The last segment of `fullPath`.
    public var name: String { fullPath.lastPathSegment }
}
