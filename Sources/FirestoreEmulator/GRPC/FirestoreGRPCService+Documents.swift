import EmulatorCore
import FirestoreWire
import GRPCCore
import SwiftProtobuf

/// GetDocument, ListDocuments, CreateDocument, UpdateDocument and DeleteDocument.
extension FirestoreGRPCService {
    /// GetDocument.
    func getDocument(request: ServerRequest<Google_Firestore_V1_GetDocumentRequest>, context: ServerContext)
        async throws -> ServerResponse<Google_Firestore_V1_Document>
    {
        try unary { () throws(FirestoreError) in
            let message = request.message
            let (database, path) = try DocumentPath.parse(documentName: message.name)
            let consistency: FirestoreStore.Consistency
            switch message.consistencySelector {
            case .transaction(let id): consistency = .transaction(Array(id))
            case .readTime(let time): consistency = .readTime(Timestamp(seconds: time.seconds, nanos: time.nanos))
            case nil: consistency = .latest
            }
            let document = try service.getDocument(
                GetDocumentRequest(
                    database: database, path: path, mask: message.hasMask ? try message.mask.paths : nil,
                    consistency: consistency),
                self.context(request.metadata))
            return document.proto(in: database)
        }
    }

    /// ListDocuments.
    func listDocuments(request: ServerRequest<Google_Firestore_V1_ListDocumentsRequest>, context: ServerContext)
        async throws -> ServerResponse<Google_Firestore_V1_ListDocumentsResponse>
    {
        try unary { () throws(FirestoreError) in
            let message = request.message
            let (database, parent) = try DocumentPath.parse(parentName: message.parent)
            try DocumentPath.validateID(message.collectionID)
            let listing = try DocumentListing(
                mask: message.hasMask ? try message.mask.paths : nil, pageSize: Int(message.pageSize),
                showMissing: message.showMissing, orderBy: message.orderBy, pageToken: message.pageToken)
            let consistency: FirestoreStore.Consistency
            switch message.consistencySelector {
            case .transaction(let id): consistency = .transaction(Array(id))
            case .readTime(let time): consistency = .readTime(Timestamp(seconds: time.seconds, nanos: time.nanos))
            case nil: consistency = .latest
            }
            let page = try service.listDocuments(
                ListDocumentsRequest(
                    database: database, parent: parent, collectionID: message.collectionID, listing: listing,
                    consistency: consistency),
                self.context(request.metadata))
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
    }

    /// CreateDocument.
    func createDocument(request: ServerRequest<Google_Firestore_V1_CreateDocumentRequest>, context: ServerContext)
        async throws -> ServerResponse<Google_Firestore_V1_Document>
    {
        try unary { () throws(FirestoreError) in
            let message = request.message
            let (database, parent) = try DocumentPath.parse(parentName: message.parent)
            try DocumentPath.validateID(message.collectionID)
            let mask = message.hasMask ? try message.mask.paths : nil
            let path = try DocumentPath.newDocument(in: parent.appending(message.collectionID), id: message.documentID)
            let fields = try FirestoreValue.fields(proto: message.document.fields, field: "document.fields")
            let document = try service.createDocument(
                CreateDocumentRequest(database: database, path: path, fields: fields, mask: mask),
                self.context(request.metadata))
            return document.proto(in: database)
        }
    }

    /// UpdateDocument: the document names itself.
    func updateDocument(request: ServerRequest<Google_Firestore_V1_UpdateDocumentRequest>, context: ServerContext)
        async throws -> ServerResponse<Google_Firestore_V1_Document>
    {
        try unary { () throws(FirestoreError) in
            let message = request.message
            let (database, path) = try DocumentPath.parse(documentName: message.document.name)
            let mask = message.hasMask ? try message.mask.paths : nil
            let updateMask = message.hasUpdateMask ? try message.updateMask.paths : nil
            let fields = try FirestoreValue.fields(proto: message.document.fields, field: "document.fields")
            let precondition = message.hasCurrentDocument ? try Precondition(proto: message.currentDocument) : nil
            let document = try service.updateDocument(
                UpdateDocumentRequest(
                    database: database, path: path, fields: fields, updateMask: updateMask, precondition: precondition,
                    mask: mask),
                self.context(request.metadata))
            return document.proto(in: database)
        }
    }

    /// DeleteDocument.
    func deleteDocument(request: ServerRequest<Google_Firestore_V1_DeleteDocumentRequest>, context: ServerContext)
        async throws -> ServerResponse<Google_Protobuf_Empty>
    {
        try unary { () throws(FirestoreError) in
            let message = request.message
            let (database, path) = try DocumentPath.parse(documentName: message.name)
            let precondition = message.hasCurrentDocument ? try Precondition(proto: message.currentDocument) : nil
            try service.deleteDocument(
                DeleteDocumentRequest(database: database, path: path, precondition: precondition),
                self.context(request.metadata))
            return Google_Protobuf_Empty()
        }
    }
}
