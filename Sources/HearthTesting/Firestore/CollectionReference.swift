/// A collection's place in the database: its documents, and a query for all of them that `whereField`,
/// `order(by:)` and `limit(to:)` narrow.
public struct CollectionReference: QueryConvertible {
    /// The client the collection is read and written with.
    let client: FirestoreClient
    /// The collection's path (`conversations/c1/messages`).
    public let path: String

    /// The collection at `path`, empty segments dropped. A path that does not name a collection fails its
    /// first operation (see `validate()`), so a typo fails one test rather than the test process.
    init(client: FirestoreClient, path: String) {
        self.client = client
        self.path = path.split(separator: "/").joined(separator: "/")
    }

    /// The collection's id, the last segment of its path.
    public var collectionID: String { path.lastPathSegment }

    /// Every document of the collection, unordered and unfiltered.
    public var query: Query { Query(collection: self) }

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
        try validate()
        let document = document()
        let write = try WriteData(setting: data, merge: false, root: client.root).write(to: document.name, exists: false)
        try await client.commit([write])
        return document
    }

    /// Fails with `invalidArgument` unless the path names a collection.
    func validate() throws(ClientError) {
        try FirestoreClient.validate(path, document: false)
    }
}
