import EmulatorCore
import EmulatorHTTP
import Foundation

/// The single-document and listing methods: GetDocument, ListDocuments, CreateDocument, UpdateDocument,
/// DeleteDocument (Firestore REST v1): each decodes its URL query and body into the service's request and
/// renders its result.
extension FirestoreREST {
    /// `GET /v1/{name}`.
    func getDocument(_ database: DatabaseName, _ path: DocumentPath, _ call: RESTCall) throws(FirestoreError) -> DocumentJSON {
        try call.checkQuery(allowing: ["mask.fieldPaths", "transaction", "readTime"])
        let request = GetDocumentRequest(
            database: database, path: path, mask: try call.mask(), consistency: try call.queryConsistency())
        return DocumentJSON(document: try service.getDocument(request, call.context), database: database)
    }

    /// `GET /v1/{parent}/{collectionId}`.
    func listDocuments(_ database: DatabaseName, parent: DocumentPath, collectionID: String, _ call: RESTCall)
        throws(FirestoreError) -> JSONValue
    {
        try call.checkQuery(allowing: [
            "pageSize", "pageToken", "orderBy", "mask.fieldPaths", "showMissing", "transaction", "readTime",
        ])
        let listing = try DocumentListing(
            mask: try call.mask(), pageSize: try call.integer("pageSize"), showMissing: call.query["showMissing"] == "true",
            orderBy: call.query["orderBy"], pageToken: call.query["pageToken"])
        let request = ListDocumentsRequest(
            database: database, parent: parent, collectionID: collectionID, listing: listing,
            consistency: try call.queryConsistency())
        return try service.listDocuments(request, call.context).json(in: database)
    }

    /// `POST /v1/{parent}/{collectionId}?documentId=`.
    func createDocument(_ database: DatabaseName, parent: DocumentPath, collectionID: String, _ call: RESTCall)
        throws(FirestoreError) -> DocumentJSON
    {
        try call.checkQuery(allowing: ["documentId", "mask.fieldPaths"])
        try call.checkBody(allowing: ["name", "fields", "createTime", "updateTime"], at: "document")
        let mask = try call.mask()
        let path = try DocumentPath.newDocument(in: parent.appending(collectionID), id: call.query["documentId"])
        let fields = try FirestoreValue.fields(call.body["fields"] ?? [:], field: "document.fields")
        let request = CreateDocumentRequest(database: database, path: path, fields: fields, mask: mask)
        return DocumentJSON(document: try service.createDocument(request, call.context), database: database)
    }

    /// `PATCH /v1/{name}`; `fields`: the body's fields when they were read from its bytes (`call.body` is
    /// then empty).
    func updateDocument(
        _ database: DatabaseName, _ path: DocumentPath, _ call: RESTCall, fields: [String: FirestoreValue]? = nil
    ) throws(FirestoreError) -> DocumentJSON {
        try call.checkQuery(allowing: [
            "updateMask.fieldPaths", "mask.fieldPaths", "currentDocument.exists", "currentDocument.updateTime",
        ])
        try call.checkBody(allowing: ["name", "fields", "createTime", "updateTime"], at: "document")
        if let name = call.body["name"]?.stringValue, !name.isEmpty, name != path.name(in: database) {
            throw FirestoreError(.invalidArgument, "Document name \"\(name)\" does not match the name in the URL.")
        }
        let mask = try call.mask()
        let updateMask = try call.fieldPaths("updateMask.fieldPaths")
        let documentFields: [String: FirestoreValue]
        if let fields {
            documentFields = fields
        } else {
            documentFields = try FirestoreValue.fields(call.body["fields"] ?? [:], field: "document.fields")
        }
        let request = UpdateDocumentRequest(
            database: database, path: path, fields: documentFields,
            updateMask: call.query["updateMask.fieldPaths"] == nil ? nil : updateMask, precondition: try call.precondition(),
            mask: mask)
        return DocumentJSON(document: try service.updateDocument(request, call.context), database: database)
    }

    /// `DELETE /v1/{name}`.
    func deleteDocument(_ database: DatabaseName, _ path: DocumentPath, _ call: RESTCall) throws(FirestoreError) -> JSONValue {
        try call.checkQuery(allowing: ["currentDocument.exists", "currentDocument.updateTime"])
        try service.deleteDocument(
            DeleteDocumentRequest(database: database, path: path, precondition: try call.precondition()), call.context)
        return [:]
    }
}

extension DocumentPage {
    /// `ListDocumentsResponse`: `documents` (a missing one as its bare name) and `nextPageToken`.
    func json(in database: DatabaseName) -> JSONValue {
        var response: [String: JSONValue] = [:]
        if !entries.isEmpty {
            response["documents"] = .array(entries.map { entry in
                switch entry {
                case .document(let document): return document.json(in: database)
                case .missing(let path): return ["name": .string(path.name(in: database))]
                }
            })
        }
        if let next { response["nextPageToken"] = .string(next.encoded) }
        return .object(response)
    }
}
