/// A collection's place in the database: its documents, and a query for all of them that `whereField`,
/// `order(by:)` and `limit(to:)` narrow.
public struct CollectionReference: QueryConvertible {
    /// The client the collection is read and written with.
    let client: FirestoreClient
    /// The collection's path (`conversations/c1/messages`).
    public let path: String

    /// The collection at `path`; a path with an even number of segments is a programming error.
    init(client: FirestoreClient, path: String) {
        let segments = path.split(separator: "/")
        precondition(!segments.count.isMultiple(of: 2), "A collection path has an odd number of segments: \(path)")
        self.client = client
        self.path = segments.joined(separator: "/")
    }

    /// The collection's id, the last segment of its path.
    public var collectionID: String { path.split(separator: "/").last.map(String.init) ?? "" }

    /// Every document of the collection, unordered and unfiltered.
    public var query: Query {
        let parent = path.split(separator: "/").dropLast().joined(separator: "/")
        return Query(client: client, parent: parent, collectionID: collectionID)
    }

    /// The document `id` in the collection.
    public func document(_ id: String) -> DocumentReference {
        DocumentReference(client: client, path: path + "/" + id)
    }

    /// A new document with a random 20-character id, as the SDKs make them.
    public func document() -> DocumentReference {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return document(String((0..<20).map { _ in alphabet.randomElement()! }))
    }

    /// Creates a document with a random id and `data`; returns it.
    @discardableResult
    public func addDocument(data: [String: FirestoreValue]) async throws(ClientError) -> DocumentReference {
        let document = document()
        let write = try WriteData(setting: data, merge: false, root: client.root).write(to: document.name, exists: false)
        try await client.commit([write])
        return document
    }
}
