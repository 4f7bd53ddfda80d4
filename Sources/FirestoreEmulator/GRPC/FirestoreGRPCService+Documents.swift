import EmulatorCore
import FirestoreWire
import GRPCCore
import SwiftProtobuf

/// GetDocument, ListDocuments, CreateDocument, UpdateDocument and DeleteDocument.
extension FirestoreGRPCService {
    /// GetDocument.
    func getDocument(_ message: Google_Firestore_V1_GetDocumentRequest, _ caller: CallContext)
        throws(FirestoreError) -> Google_Firestore_V1_Document
    {
        let (document, database) = try read(message, caller)
        return document.proto(in: database)
    }

    /// GetDocument's response, serialized (`Document.protoBytes`).
    func getDocumentBytes(_ message: Google_Firestore_V1_GetDocumentRequest, _ caller: CallContext)
        throws(FirestoreError) -> [[UInt8]]
    {
        let (document, database) = try read(message, caller)
        return [document.protoBytes(in: database)]
    }

    /// The document GetDocument asks for, with its database.
    private func read(_ message: Google_Firestore_V1_GetDocumentRequest, _ caller: CallContext)
        throws(FirestoreError) -> (Document, DatabaseName)
    {
        let (database, path) = try DocumentPath.parse(documentName: message.name)
        let consistency = FirestoreStore.Consistency(message.consistencySelector)
        let document = try service.getDocument(
            GetDocumentRequest(
                database: database, path: path, mask: message.hasMask ? try message.mask.paths : nil,
                consistency: consistency),
            caller)
        return (document, database)
    }

    /// `getDocument` through grpc-swift.
    func getDocument(request: ServerRequest<Google_Firestore_V1_GetDocumentRequest>, context: ServerContext)
        async throws -> ServerResponse<Google_Firestore_V1_Document>
    {
        try unary(request, getDocument(_:_:))
    }

    /// ListDocuments.
    func listDocuments(_ message: Google_Firestore_V1_ListDocumentsRequest, _ caller: CallContext)
        throws(FirestoreError) -> Google_Firestore_V1_ListDocumentsResponse
    {
        let (database, parent) = try DocumentPath.parse(parentName: message.parent)
        try DocumentPath.validateID(message.collectionID)
        let listing = try DocumentListing(
            mask: message.hasMask ? try message.mask.paths : nil, pageSize: Int(message.pageSize),
            showMissing: message.showMissing, orderBy: message.orderBy, pageToken: message.pageToken)
        let consistency = FirestoreStore.Consistency(message.consistencySelector)
        let page = try service.listDocuments(
            ListDocumentsRequest(
                database: database, parent: parent, collectionID: message.collectionID, listing: listing,
                consistency: consistency),
            caller)
        var response = Google_Firestore_V1_ListDocumentsResponse()
        response.documents = page.entries.map { entry in
            switch entry {
            case .document(let document): return document.proto(in: database)
            case .missing(let path): return .with { $0.name = path.name(in: database) }
            }
        }
        if let next = page.next { response.nextPageToken = next.encoded }
        return response
    }

    /// `listDocuments` through grpc-swift.
    func listDocuments(request: ServerRequest<Google_Firestore_V1_ListDocumentsRequest>, context: ServerContext)
        async throws -> ServerResponse<Google_Firestore_V1_ListDocumentsResponse>
    {
        try unary(request, listDocuments(_:_:))
    }

    /// CreateDocument.
    func createDocument(_ message: Google_Firestore_V1_CreateDocumentRequest, _ caller: CallContext)
        throws(FirestoreError) -> Google_Firestore_V1_Document
    {
        let (database, parent) = try DocumentPath.parse(parentName: message.parent)
        try DocumentPath.validateID(message.collectionID)
        let mask = message.hasMask ? try message.mask.paths : nil
        let path = try DocumentPath.newDocument(in: parent.appending(message.collectionID), id: message.documentID)
        let fields = try FirestoreValue.fields(proto: message.document.fields, field: "document.fields")
        let document = try service.createDocument(
            CreateDocumentRequest(database: database, path: path, fields: fields, mask: mask),
            caller)
        return document.proto(in: database)
    }

    /// `createDocument` through grpc-swift.
    func createDocument(request: ServerRequest<Google_Firestore_V1_CreateDocumentRequest>, context: ServerContext)
        async throws -> ServerResponse<Google_Firestore_V1_Document>
    {
        try unary(request, createDocument(_:_:))
    }

    /// UpdateDocument: the document names itself.
    func updateDocument(_ message: Google_Firestore_V1_UpdateDocumentRequest, _ caller: CallContext)
        throws(FirestoreError) -> Google_Firestore_V1_Document
    {
        let (database, path) = try DocumentPath.parse(documentName: message.document.name)
        let mask = message.hasMask ? try message.mask.paths : nil
        let updateMask = message.hasUpdateMask ? try message.updateMask.paths : nil
        let fields = try FirestoreValue.fields(proto: message.document.fields, field: "document.fields")
        let precondition = message.hasCurrentDocument ? try Precondition(proto: message.currentDocument) : nil
        let document = try service.updateDocument(
            UpdateDocumentRequest(
                database: database, path: path, fields: fields, updateMask: updateMask, precondition: precondition,
                mask: mask),
            caller)
        return document.proto(in: database)
    }

    /// `updateDocument` through grpc-swift.
    func updateDocument(request: ServerRequest<Google_Firestore_V1_UpdateDocumentRequest>, context: ServerContext)
        async throws -> ServerResponse<Google_Firestore_V1_Document>
    {
        try unary(request, updateDocument(_:_:))
    }

    /// DeleteDocument.
    func deleteDocument(_ message: Google_Firestore_V1_DeleteDocumentRequest, _ caller: CallContext)
        throws(FirestoreError) -> Google_Protobuf_Empty
    {
        let (database, path) = try DocumentPath.parse(documentName: message.name)
        let precondition = message.hasCurrentDocument ? try Precondition(proto: message.currentDocument) : nil
        try service.deleteDocument(
            DeleteDocumentRequest(database: database, path: path, precondition: precondition),
            caller)
        return Google_Protobuf_Empty()
    }

    /// `deleteDocument` through grpc-swift.
    func deleteDocument(request: ServerRequest<Google_Firestore_V1_DeleteDocumentRequest>, context: ServerContext)
        async throws -> ServerResponse<Google_Protobuf_Empty>
    {
        try unary(request, deleteDocument(_:_:))
    }
}
