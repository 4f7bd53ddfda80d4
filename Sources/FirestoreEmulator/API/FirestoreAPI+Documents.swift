import EmulatorCore
import EmulatorHTTP
import Foundation

/// The single-document and listing methods: GetDocument, ListDocuments, CreateDocument, UpdateDocument,
/// DeleteDocument (Firestore REST v1).
extension FirestoreAPI {
    /// `GET /v1/{name}`.
    func getDocument(_ database: DatabaseName, _ path: DocumentPath, _ call: RESTCall) throws(APIError) -> JSONValue {
        try call.checkQuery(allowing: ["mask.fieldPaths", "transaction", "readTime"])
        let mask = try call.mask()
        let (document, _) = try store.read(database, consistency: try call.queryConsistency()) {
            (view: inout DatabaseView) throws(APIError) -> Document? in
            try rules.authorizeGet(path, credential: call.credential, view: view, time: call.now)
            return view.document(at: path)
        }
        guard let document else {
            throw .firestore(.notFound, "Document \"\(path.name(in: database))\" not found.")
        }
        return document.masked(by: mask).json(in: database)
    }

    /// `GET /v1/{parent}/{collectionId}`: documents in name order (or `orderBy`), paged; with `showMissing`,
    /// also the missing documents that have subcollections, as bare names.
    func listDocuments(_ database: DatabaseName, parent: DocumentPath, collectionID: String, _ call: RESTCall)
        throws(APIError) -> JSONValue
    {
        try call.checkQuery(allowing: [
            "pageSize", "pageToken", "orderBy", "mask.fieldPaths", "showMissing", "transaction", "readTime",
        ])
        let mask = try call.mask()
        let pageSize = try call.integer("pageSize").map { $0 > 0 ? $0 : Int.max } ?? Int.max
        let showMissing = call.query["showMissing"] == "true"
        let order = try Self.listOrder(call.query["orderBy"])
        let token = try ListPageToken(call.query["pageToken"])
        var query = StructuredQuery(parent: parent, collectionID: collectionID)
        query.orderBy = order
        let collection = parent.appending(collectionID)
        let ((documents, next), _) = try store.read(database, consistency: try call.queryConsistency()) {
            (view: inout DatabaseView) throws(APIError) -> ([JSONValue], ListPageToken?) in
            try rules.authorizeQuery(query, credential: call.credential, view: view, time: call.now)
            if showMissing || order.isEmpty {
                var page: [JSONValue] = []
                var lastID: String?
                for (id, exists) in view.state.listing(of: collection, from: token.afterID) where id != token.afterID {
                    if page.count == pageSize { return (page, ListPageToken(afterID: lastID)) }
                    lastID = id
                    let path = collection.appending(id)
                    if exists, let document = view.document(at: path) {
                        page.append(document.masked(by: mask).json(in: database))
                    } else if showMissing {
                        page.append(["name": .string(path.name(in: database))])
                    }
                }
                return (page, nil)
            }
            let results = view.run(query)
            let start = min(token.offset, results.count)
            let end = pageSize == Int.max ? results.count : min(results.count, start + pageSize)
            let page = results[start..<end].map { $0.masked(by: mask).json(in: database) }
            return (page, end < results.count ? ListPageToken(offset: end) : nil)
        }
        var response: [String: JSONValue] = [:]
        if !documents.isEmpty { response["documents"] = .array(documents) }
        if let next { response["nextPageToken"] = .string(next.encoded) }
        return .object(response)
    }

    /// `POST /v1/{parent}/{collectionId}?documentId=`: creates a document (a random 20-character id when
    /// none is given); `ALREADY_EXISTS` if it exists.
    func createDocument(_ database: DatabaseName, parent: DocumentPath, collectionID: String, _ call: RESTCall)
        throws(APIError) -> JSONValue
    {
        try call.checkQuery(allowing: ["documentId", "mask.fieldPaths"])
        try call.checkBody(allowing: ["name", "fields", "createTime", "updateTime"], at: "document")
        let mask = try call.mask()
        let id = call.query["documentId"].flatMap { $0.isEmpty ? nil : $0 } ?? RandomID.make(length: 20)
        try DocumentPath.validateID(id)
        let path = parent.appending(collectionID).appending(id)
        let fields = try FirestoreValue.fields(call.body["fields"] ?? [:], field: "document.fields")
        let write = Write(path: path, operation: .update(fields: fields), precondition: .exists(false))
        let outcome = try commit(database, [write], transaction: nil, call)
        return try Self.written(path, outcome, database).masked(by: mask).json(in: database)
    }

    /// `PATCH /v1/{name}`: sets the document, or only the `updateMask` paths, under `currentDocument`.
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
        let write = Write(
            path: path, operation: .update(fields: fields), updateMask: call.query["updateMask.fieldPaths"] == nil ? nil : updateMask,
            precondition: try call.precondition())
        let outcome = try commit(database, [write], transaction: nil, call)
        return try Self.written(path, outcome, database).masked(by: mask).json(in: database)
    }

    /// `DELETE /v1/{name}`: deletes the document (no error if it does not exist, unless `currentDocument`
    /// says it must).
    func deleteDocument(_ database: DatabaseName, _ path: DocumentPath, _ call: RESTCall) throws(APIError) -> JSONValue {
        try call.checkQuery(allowing: ["currentDocument.exists", "currentDocument.updateTime"])
        let write = Write(path: path, operation: .delete, precondition: try call.precondition())
        _ = try commit(database, [write], transaction: nil, call)
        return [:]
    }

    /// Commits `writes` with the caller's rules decided against the pending commit.
    func commit(_ database: DatabaseName, _ writes: [Write], transaction: [UInt8]?, _ call: RESTCall) throws(APIError)
        -> FirestoreStore.CommitOutcome
    {
        try store.commit(database, writes: writes, transaction: transaction) {
            (pending: [FirestoreStore.PendingWrite], view: DatabaseView, commitTime: Timestamp) throws(APIError) in
            try rules.authorizeWrites(pending, credential: call.credential, view: view, time: commitTime)
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

    /// `orderBy` of ListDocuments: `field [asc|desc], ...`.
    private static func listOrder(_ text: String?) throws(APIError) -> [QueryOrder] {
        guard let text, !text.trimmingCharacters(in: .whitespaces).isEmpty else { return [] }
        var orders: [QueryOrder] = []
        for part in text.split(separator: ",") {
            let words = part.split(separator: " ").map(String.init)
            guard (1...2).contains(words.count), let field = FieldPath(parsing: words[0]),
                words.count == 1 || ["asc", "desc"].contains(words[1].lowercased())
            else {
                throw .firestore(.invalidArgument, "Invalid order_by \"\(text)\": expected \"field [asc|desc], ...\".")
            }
            orders.append(QueryOrder(field: field, descending: words.count == 2 && words[1].lowercased() == "desc"))
        }
        if orders.count == 1, orders[0] == QueryOrder(field: .documentName) { return [] }
        return orders
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
