import EmulatorCore

extension DocumentPath {
    /// Whether the path can parent queries, listings and new documents: the documents root or a document.
    var isParent: Bool { segments.isEmpty || isDocument }

    /// Parses a parent's resource name (`projects/{p}/databases/{d}/documents[/{collection}/{id}...]`), as
    /// the `parent` of a gRPC request; INVALID_ARGUMENT for anything else.
    static func parse(parentName name: String) throws(APIError) -> (DatabaseName, DocumentPath) {
        let (database, path) = try parse(resourceName: name)
        guard path.isParent else { throw .invalidParent(name) }
        return (database, path)
    }
}
