/// A path in a Storage bucket, as the SDKs' `StorageReference`: an object, or a folder to list. It
/// carries its client, so its operations speak for that client's identity.
public struct StorageReference: Sendable, Hashable, CustomStringConvertible {
    let client: StorageClient
    /// The path from the bucket's root, without leading or trailing `/` (empty for the root).
    public let path: String

    init(client: StorageClient, path: String) {
        self.client = client
        self.path = path
    }

    /// The last segment of the path (empty for the root).
    public var name: String { path.lastPathSegment }

    /// The bucket.
    public var bucket: String { client.bucket }

    /// The reference one level down at `path` (which may have several segments).
    public func child(_ path: String) -> StorageReference {
        let child = Self.canonical(path)
        let separator = self.path.isEmpty || child.isEmpty ? "" : "/"
        return StorageReference(client: client, path: self.path + separator + child)
    }

    /// The reference one level up; nil for the root.
    public var parent: StorageReference? {
        guard !path.isEmpty else { return nil }
        let parent = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? ""
        return StorageReference(client: client, path: parent)
    }

    /// `gs://bucket/path`.
    public var description: String { "gs://\(bucket)/\(path)" }

    /// `path` without empty segments (so no leading, trailing or doubled `/`).
    static func canonical(_ path: String) -> String {
        path.split(separator: "/").joined(separator: "/")
    }

    /// `http://host:port/v0/b/{bucket}/o/{path}`, the object's URL (its path percent-encoded, `/` too).
    var objectURL: String { "\(client.objectsURL)/\(path.urlComponentEncoded)" }
}
