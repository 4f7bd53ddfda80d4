import EmulatorCore
import EmulatorHTTP
import Foundation

/// The single-document and listing methods: GetDocument, ListDocuments, CreateDocument, UpdateDocument,
/// DeleteDocument (Firestore REST v1). Each REST handler decodes its URL query and body, then runs the
/// transport-neutral operation that gRPC runs too.
extension FirestoreAPI {
    /// `GET /v1/{name}`.
    func getDocument(_ database: DatabaseName, _ path: DocumentPath, _ call: RESTCall) throws(APIError) -> JSONValue {
        try call.checkQuery(allowing: ["mask.fieldPaths", "transaction", "readTime"])
        return try getDocument(database, path, mask: try call.mask(), consistency: try call.queryConsistency(), call.context)
    }

    /// GetDocument: the document at `path` as `consistency` selects it, with only the `mask` fields (all when
    /// `nil`); `NOT_FOUND` when it does not exist.
    func getDocument(
        _ database: DatabaseName, _ path: DocumentPath, mask: [FieldPath]?, consistency: FirestoreStore.Consistency,
        _ context: CallContext
    ) throws(APIError) -> JSONValue {
        let (document, _) = try store.read(database, consistency: consistency) {
            (view: inout DatabaseView) throws(APIError) -> Document? in
            try rules.authorizeGet(path, credential: context.credential, view: view, time: context.now)
            return view.document(at: path)
        }
        guard let document else {
            throw .firestore(.notFound, "Document \"\(path.name(in: database))\" not found.")
        }
        return document.masked(by: mask).json(in: database)
    }

    /// `GET /v1/{parent}/{collectionId}`.
    func listDocuments(_ database: DatabaseName, parent: DocumentPath, collectionID: String, _ call: RESTCall)
        throws(APIError) -> JSONValue
    {
        try call.checkQuery(allowing: [
            "pageSize", "pageToken", "orderBy", "mask.fieldPaths", "showMissing", "transaction", "readTime",
        ])
        let listing = try DocumentListing(
            mask: try call.mask(), pageSize: try call.integer("pageSize"), showMissing: call.query["showMissing"] == "true",
            orderBy: call.query["orderBy"], pageToken: call.query["pageToken"])
        return try listDocuments(
            database, parent: parent, collectionID: collectionID, listing, consistency: try call.queryConsistency(),
            call.context)
    }

    /// ListDocuments: documents in name order (or the listing's order), paged; with `showMissing`, also the
    /// missing documents that have subcollections, as bare names.
    func listDocuments(
        _ database: DatabaseName, parent: DocumentPath, collectionID: String, _ listing: DocumentListing,
        consistency: FirestoreStore.Consistency, _ context: CallContext
    ) throws(APIError) -> JSONValue {
        var query = StructuredQuery(parent: parent, collectionID: collectionID)
        query.orderBy = listing.order
        let collection = parent.appending(collectionID)
        let ((documents, next), _) = try store.read(database, consistency: consistency) {
            (view: inout DatabaseView) throws(APIError) -> ([JSONValue], ListPageToken?) in
            try rules.authorizeQuery(query, credential: context.credential, view: view, time: context.now)
            if listing.showMissing || listing.order.isEmpty {
                var page: [JSONValue] = []
                var lastID: String?
                let after = listing.token.afterID
                for (id, exists) in view.state.listing(of: collection, from: after) where id != after {
                    if page.count == listing.pageSize { return (page, ListPageToken(afterID: lastID)) }
                    lastID = id
                    let path = collection.appending(id)
                    if exists, let document = view.document(at: path) {
                        page.append(document.masked(by: listing.mask).json(in: database))
                    } else if listing.showMissing {
                        page.append(["name": .string(path.name(in: database))])
                    }
                }
                return (page, nil)
            }
            let results = view.run(query)
            let start = min(listing.token.offset, results.count)
            let end = listing.pageSize == Int.max ? results.count : min(results.count, start + listing.pageSize)
            let page = results[start..<end].map { $0.masked(by: listing.mask).json(in: database) }
            return (page, end < results.count ? ListPageToken(offset: end) : nil)
        }
        var response: [String: JSONValue] = [:]
        if !documents.isEmpty { response["documents"] = .array(documents) }
        if let next { response["nextPageToken"] = .string(next.encoded) }
        return .object(response)
    }

    /// `POST /v1/{parent}/{collectionId}?documentId=`.
    func createDocument(_ database: DatabaseName, parent: DocumentPath, collectionID: String, _ call: RESTCall)
        throws(APIError) -> JSONValue
    {
        try call.checkQuery(allowing: ["documentId", "mask.fieldPaths"])
        try call.checkBody(allowing: ["name", "fields", "createTime", "updateTime"], at: "document")
        let mask = try call.mask()
        let path = try Self.newDocumentPath(in: parent.appending(collectionID), id: call.query["documentId"])
        let fields = try FirestoreValue.fields(call.body["fields"] ?? [:], field: "document.fields")
        return try createDocument(database, path, fields: fields, mask: mask, call.context)
    }

    /// CreateDocument: creates the document at `path`; `ALREADY_EXISTS` if it exists. Answers the new
    /// document with only the `mask` fields (all when `nil`).
    func createDocument(
        _ database: DatabaseName, _ path: DocumentPath, fields: [String: FirestoreValue], mask: [FieldPath]?,
        _ context: CallContext
    ) throws(APIError) -> JSONValue {
        let write = Write(path: path, operation: .update(fields: fields), precondition: .exists(false))
        let outcome = try commit(database, [write], transaction: nil, context)
        return try Self.written(path, outcome, database).masked(by: mask).json(in: database)
    }

    /// The path of a document CreateDocument makes in `collection`: `id`, or a random 20-character id when
    /// none is given.
    static func newDocumentPath(in collection: DocumentPath, id: String?) throws(APIError) -> DocumentPath {
        let id = id.flatMap { $0.isEmpty ? nil : $0 } ?? RandomID.make(length: 20)
        try DocumentPath.validateID(id)
        return collection.appending(id)
    }

    /// `PATCH /v1/{name}`.
    func updateDocument(_ database: DatabaseName, _ path: DocumentPath, _ call: RESTCall) throws(APIError) -> JSONValue {
        try call.checkQuery(allowing: [
            "updateMask.fieldPaths", "mask.fieldPaths", "currentDocument.exists", "currentDocument.updateTime",
        ])
        try call.checkBody(allowing: ["name", "fields", "createTime", "updateTime"], at: "document")
        if let name = call.body["name"]?.stringValue, !name.isEmpty, name != path.name(in: database) {
            throw .firestore(.invalidArgument, "Document name \"\(name)\" does not match the name in the URL.")
        }
        let mask = try call.mask()
        let updateMask = try call.fieldPaths("updateMask.fieldPaths")
        let fields = try FirestoreValue.fields(call.body["fields"] ?? [:], field: "document.fields")
        return try updateDocument(
            database, path, fields: fields, updateMask: call.query["updateMask.fieldPaths"] == nil ? nil : updateMask,
            precondition: try call.precondition(), mask: mask, call.context)
    }

    /// UpdateDocument: sets the document at `path` to `fields`, or only the `updateMask` paths, under
    /// `precondition`. Answers the document with only the `mask` fields (all when `nil`).
    func updateDocument(
        _ database: DatabaseName, _ path: DocumentPath, fields: [String: FirestoreValue], updateMask: [FieldPath]?,
        precondition: Precondition?, mask: [FieldPath]?, _ context: CallContext
    ) throws(APIError) -> JSONValue {
        let write = Write(path: path, operation: .update(fields: fields), updateMask: updateMask, precondition: precondition)
        let outcome = try commit(database, [write], transaction: nil, context)
        return try Self.written(path, outcome, database).masked(by: mask).json(in: database)
    }

    /// `DELETE /v1/{name}`.
    func deleteDocument(_ database: DatabaseName, _ path: DocumentPath, _ call: RESTCall) throws(APIError) -> JSONValue {
        try call.checkQuery(allowing: ["currentDocument.exists", "currentDocument.updateTime"])
        return try deleteDocument(database, path, precondition: try call.precondition(), call.context)
    }

    /// DeleteDocument: deletes the document at `path` (no error if it does not exist, unless `precondition`
    /// says it must).
    func deleteDocument(_ database: DatabaseName, _ path: DocumentPath, precondition: Precondition?, _ context: CallContext)
        throws(APIError) -> JSONValue
    {
        let write = Write(path: path, operation: .delete, precondition: precondition)
        _ = try commit(database, [write], transaction: nil, context)
        return [:]
    }

    /// Commits `writes` with the caller's rules decided against the pending commit.
    func commit(_ database: DatabaseName, _ writes: [Write], transaction: [UInt8]?, _ context: CallContext)
        throws(APIError) -> FirestoreStore.CommitOutcome
    {
        try store.commit(database, writes: writes, transaction: transaction) {
            (pending: [FirestoreStore.PendingWrite], view: DatabaseView, commitTime: Timestamp) throws(APIError) in
            try rules.authorizeWrites(pending, credential: context.credential, view: view, time: commitTime)
        }
    }

    /// The document a one-write commit left at `path`.
    private static func written(_ path: DocumentPath, _ outcome: FirestoreStore.CommitOutcome, _ database: DatabaseName)
        throws(APIError) -> Document
    {
        guard case .some(.some(let document)) = outcome.documents[path] else {
            throw .internal("The written document \(path.name(in: database)) is missing after its commit.")
        }
        return document
    }
}

/// Where the next page of a ListDocuments starts: after a document id (name order) or at an offset
/// (other orders). Opaque to clients: base64 of `a:<id>` or `o:<offset>`.
struct ListPageToken {
    /// The last id of the previous page.
    var afterID: String?
    /// The number of results of previous pages.
    var offset = 0

    /// A token after `id`.
    init(afterID: String?) { self.afterID = afterID }

    /// A token at `offset`.
    init(offset: Int) { self.offset = offset }

    /// Decodes a client's `pageToken` (none: the first page).
    init(_ text: String?) throws(APIError) {
        guard let text, !text.isEmpty else { return }
        guard let data = Data(base64Encoded: text), let decoded = String(data: data, encoding: .utf8),
            decoded.count >= 2
        else {
            throw .firestore(.invalidArgument, "Invalid page token.")
        }
        let value = String(decoded.dropFirst(2))
        if decoded.hasPrefix("a:") {
            afterID = value
        } else if decoded.hasPrefix("o:"), let offset = Int(value), offset >= 0 {
            self.offset = offset
        } else {
            throw .firestore(.invalidArgument, "Invalid page token.")
        }
    }

    /// The token clients send back.
    var encoded: String {
        Data((afterID.map { "a:" + $0 } ?? "o:\(offset)").utf8).base64EncodedString()
    }
}
