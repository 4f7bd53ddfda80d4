import EmulatorCore
import FirestoreWire
import GRPCCore
import SwiftProtobuf

/// GetDocument, ListDocuments, CreateDocument, UpdateDocument and DeleteDocument: the typed operations
/// REST runs for `GET`, `POST`, `PATCH` and `DELETE` on documents, with their parameters read from the
/// request instead of the URL query.
extension FirestoreService {
    /// GetDocument (`GET /v1/{name}`).
    func getDocument(request: ServerRequest<Google_Firestore_V1_GetDocumentRequest>, context: ServerContext)
        async throws -> ServerResponse<Google_Firestore_V1_Document>
    {
        try unary(request) { call throws(APIError) in
            let (database, path) = try DocumentPath.parse(documentName: request.message.name)
            return try api.getDocument(
                database, path, mask: try call.bodyMask(), consistency: try call.bodyConsistency(), call.context)
        }
    }

    /// ListDocuments (`GET /v1/{parent}/{collectionId}`).
    func listDocuments(request: ServerRequest<Google_Firestore_V1_ListDocumentsRequest>, context: ServerContext)
        async throws -> ServerResponse<Google_Firestore_V1_ListDocumentsResponse>
    {
        try unary(request) { call throws(APIError) in
            let message = request.message
            let (database, parent) = try DocumentPath.parse(parentName: message.parent)
            try DocumentPath.validateID(message.collectionID)
            let listing = try DocumentListing(
                mask: try call.bodyMask(), pageSize: Int(message.pageSize), showMissing: message.showMissing,
                orderBy: message.orderBy, pageToken: message.pageToken)
            return try api.listDocuments(
                database, parent: parent, collectionID: message.collectionID, listing,
                consistency: try call.bodyConsistency(), call.context)
        }
    }

    /// CreateDocument (`POST /v1/{parent}/{collectionId}?documentId=`).
    func createDocument(request: ServerRequest<Google_Firestore_V1_CreateDocumentRequest>, context: ServerContext)
        async throws -> ServerResponse<Google_Firestore_V1_Document>
    {
        try unary(request) { call throws(APIError) in
            let message = request.message
            let (database, parent) = try DocumentPath.parse(parentName: message.parent)
            try DocumentPath.validateID(message.collectionID)
            let mask = try call.bodyMask()
            let path = try FirestoreAPI.newDocumentPath(in: parent.appending(message.collectionID), id: message.documentID)
            let fields = try FirestoreValue.fields(call.body["document"]?["fields"] ?? [:], field: "document.fields")
            return try api.createDocument(database, path, fields: fields, mask: mask, call.context)
        }
    }

    /// UpdateDocument (`PATCH /v1/{document.name}`): the document names itself.
    func updateDocument(request: ServerRequest<Google_Firestore_V1_UpdateDocumentRequest>, context: ServerContext)
        async throws -> ServerResponse<Google_Firestore_V1_Document>
    {
        try unary(request) { call throws(APIError) in
            let (database, path) = try DocumentPath.parse(documentName: request.message.document.name)
            let mask = try call.bodyMask()
            let updateMask = try call.bodyMask("updateMask")
            let fields = try FirestoreValue.fields(call.body["document"]?["fields"] ?? [:], field: "document.fields")
            return try api.updateDocument(
                database, path, fields: fields, updateMask: updateMask, precondition: try call.bodyPrecondition(),
                mask: mask, call.context)
        }
    }

    /// DeleteDocument (`DELETE /v1/{name}`).
    func deleteDocument(request: ServerRequest<Google_Firestore_V1_DeleteDocumentRequest>, context: ServerContext)
        async throws -> ServerResponse<Google_Protobuf_Empty>
    {
        try unary(request) { call throws(APIError) in
            let (database, path) = try DocumentPath.parse(documentName: request.message.name)
            return try api.deleteDocument(database, path, precondition: try call.bodyPrecondition(), call.context)
        }
    }
}
