import EmulatorCore

extension DocumentPath {
    /// Whether the path can parent queries, listings and new documents: the documents root or a document.
    var isParent: Bool { segments.isEmpty || isDocument }

    /// Parses a parent's resource name (`projects/{p}/databases/{d}/documents[/{collection}/{id}...]`), as
    /// the `parent` of a gRPC request; INVALID_ARGUMENT for anything else.
    static func parse(parentName name: String) throws(FirestoreError) -> (DatabaseName, DocumentPath) {
        let (database, path) = try parse(resourceName: name)
        guard path.isParent else { throw .invalidParent(name) }
        return (database, path)
    }

    /// The path of a document CreateDocument makes in `collection`: `id`, or a random 20-character id when
    /// none is given.
    static func newDocument(in collection: DocumentPath, id: String?) throws(FirestoreError) -> DocumentPath {
        let id = id.flatMap { $0.isEmpty ? nil : $0 } ?? RandomID.make(length: 20)
        try DocumentPath.validateID(id)
        return collection.appending(id)
    }
}
