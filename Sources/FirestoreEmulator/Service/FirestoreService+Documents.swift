import EmulatorCore

/// The single-document and listing operations: GetDocument, ListDocuments, CreateDocument, UpdateDocument,
/// DeleteDocument.
extension FirestoreService {
    /// GetDocument: the document as the consistency selects it, masked; `NOT_FOUND` when it does not exist.
    func getDocument(_ request: GetDocumentRequest, _ context: CallContext) throws(FirestoreError) -> Document {
        let (document, _) = try store.read(request.database, consistency: request.consistency) {
            (view: inout DatabaseView) throws(FirestoreError) -> Document? in
            try rules.authorizeGet(request.path, credential: context.credential, view: view, time: context.now)
            return view.document(at: request.path)
        }
        guard let document else {
            throw FirestoreError(.notFound, "Document \"\(request.path.name(in: request.database))\" not found.")
        }
        return document.masked(by: request.mask)
    }

    /// ListDocuments: documents in name order (or the listing's order), paged; with `showMissing`, also the
    /// missing documents that have subcollections.
    func listDocuments(_ request: ListDocumentsRequest, _ context: CallContext) throws(FirestoreError) -> DocumentPage {
        let listing = request.listing
        var query = StructuredQuery(parent: request.parent, collectionID: request.collectionID)
        query.orderBy = listing.order
        let collection = request.parent.appending(request.collectionID)
        let (page, _) = try store.read(request.database, consistency: request.consistency) {
            (view: inout DatabaseView) throws(FirestoreError) -> DocumentPage in
            try rules.authorizeQuery(query, credential: context.credential, view: view, time: context.now)
            if listing.showMissing || listing.order.isEmpty {
                var entries: [DocumentPage.Entry] = []
                var lastID: String?
                let after = listing.token.afterID
                for (id, exists) in view.state.listing(of: collection, from: after) where id != after {
                    if entries.count == listing.pageSize { return DocumentPage(entries: entries, next: ListPageToken(afterID: lastID)) }
                    lastID = id
                    let path = collection.appending(id)
                    if exists, let document = view.document(at: path) {
                        entries.append(.document(document.masked(by: listing.mask)))
                    } else if listing.showMissing {
                        entries.append(.missing(path))
                    }
                }
                return DocumentPage(entries: entries, next: nil)
            }
            let results = view.run(query)
            let start = min(listing.token.offset, results.count)
            let end = listing.pageSize == Int.max ? results.count : min(results.count, start + listing.pageSize)
            return DocumentPage(
                entries: results[start..<end].map { .document($0.masked(by: listing.mask)) },
                next: end < results.count ? ListPageToken(offset: end) : nil)
        }
        return page
    }

    /// CreateDocument: creates the document; `ALREADY_EXISTS` if it exists. Answers the new document, masked.
    func createDocument(_ request: CreateDocumentRequest, _ context: CallContext) throws(FirestoreError) -> Document {
        let write = Write(path: request.path, operation: .update(fields: request.fields), precondition: .exists(false))
        let outcome = try commit(request.database, [write], transaction: nil, context)
        return try Self.written(request.path, outcome, request.database).masked(by: request.mask)
    }

    /// UpdateDocument: sets the document's fields, or only the update mask's paths, under the precondition.
    /// Answers the written document, masked.
    func updateDocument(_ request: UpdateDocumentRequest, _ context: CallContext) throws(FirestoreError) -> Document {
        let write = Write(
            path: request.path, operation: .update(fields: request.fields), updateMask: request.updateMask,
            precondition: request.precondition)
        let outcome = try commit(request.database, [write], transaction: nil, context)
        return try Self.written(request.path, outcome, request.database).masked(by: request.mask)
    }

    /// DeleteDocument: deletes the document (no error if it does not exist, unless the precondition says it
    /// must).
    func deleteDocument(_ request: DeleteDocumentRequest, _ context: CallContext) throws(FirestoreError) {
        let write = Write(path: request.path, operation: .delete, precondition: request.precondition)
        _ = try commit(request.database, [write], transaction: nil, context)
    }

    /// The document a one-write commit left at `path`.
    private static func written(_ path: DocumentPath, _ outcome: FirestoreStore.CommitOutcome, _ database: DatabaseName)
        throws(FirestoreError) -> Document
    {
        guard case .some(.some(let document)) = outcome.written[path] else {
            throw FirestoreError(.internal, "The written document \(path.name(in: database)) is missing after its commit.")
        }
        return document
    }
}
