import FirestoreWire
import SwiftProtobuf

/// A document's place in the database: read it, write it, listen to it.
public struct DocumentReference: Sendable {
    /// The client the document is read and written with.
    let client: FirestoreClient
    /// The document's path (`conversations/c1`).
    public let path: String

    /// The document at `path`, empty segments dropped. A path that does not name a document fails its first
    /// operation (see `validate()`), so a typo fails one test rather than the test process.
    init(client: FirestoreClient, path: String) {
        self.client = client
        self.path = path.split(separator: "/").joined(separator: "/")
    }

    /// The document's id, the last segment of its path.
    public var documentID: String { path.lastPathSegment }

    /// The collection holding the document.
    public var parent: CollectionReference {
        CollectionReference(client: client, path: path.split(separator: "/").dropLast().joined(separator: "/"))
    }

    /// The subcollection `path` (`messages`) under the document.
    public func collection(_ path: String) -> CollectionReference {
        CollectionReference(client: client, path: self.path + "/" + path)
    }

    /// Reads the document; one that does not exist is a snapshot whose `exists` is false.
    public func getDocument() async throws(ClientError) -> DocumentSnapshot {
        try validate()
        return try await client.get(path)
    }

    /// Writes the document: replaces its fields with `data`, or with `merge`, writes only the fields in
    /// `data` (nested maps merged too) and keeps the others. Creates the document if needed.
    public func setData(_ data: [String: FirestoreValue], merge: Bool = false) async throws(ClientError) {
        try validate()
        try await client.commit([WriteData(setting: data, merge: merge, root: client.root).write(to: name)])
    }

    /// Updates the fields at the given dot-separated paths (`"address.city"`), keeping the others; a value
    /// of `.delete` removes the field. Fails with `notFound` if the document does not exist.
    public func updateData(_ fields: [String: FirestoreValue]) async throws(ClientError) {
        try validate()
        try await client.commit([WriteData(updating: fields, root: client.root).write(to: name, exists: true)])
    }

    /// Deletes the document (nothing happens if it does not exist). Its subcollections stay.
    public func delete() async throws(ClientError) {
        try validate()
        try await client.commit([.with { $0.delete = name }])
    }

    /// The document now and after every change, from a `Listen` stream with a documents target. Ends with
    /// a `ClientError` if the rules refuse it or the connection fails; ending the iteration ends the stream.
    public func snapshots() -> AsyncThrowingStream<DocumentSnapshot, any Error> {
        do {
            try validate()
        } catch {
            return AsyncThrowingStream { $0.finish(throwing: error) }
        }
        var target = Google_Firestore_V1_Target()
        target.documents.documents = [name]
        let path = path
        return client.listen(target, order: { $0.path < $1.path }) { $0.documents.first ?? DocumentSnapshot(path: path) }
    }

    /// The document's resource name.
    var name: String { client.name(path) }

    /// Fails with `invalidArgument` unless the path names a document.
    func validate() throws(ClientError) {
        try FirestoreClient.validate(path, document: true)
    }
}
