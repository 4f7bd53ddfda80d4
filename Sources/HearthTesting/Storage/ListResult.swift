/// What `StorageReference.listAll()` found one level below a path.
public struct ListResult: Sendable, Hashable {
    /// The objects.
    public let items: [StorageReference]
    /// The folders: the paths that have objects further below.
    public let prefixes: [StorageReference]
}
