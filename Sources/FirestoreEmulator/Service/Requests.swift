/// The typed requests and results of `FirestoreService`, one per RPC of `google.firestore.v1.Firestore`
/// (the streams, Listen and Write, are in `Listen/`). Transports decode their wire forms into these and
/// encode the results back; nothing here knows JSON or protobuf.

/// GetDocument.
struct GetDocumentRequest: Sendable {
    var database: DatabaseName
    var path: DocumentPath
    /// The fields to return (all when `nil`).
    var mask: [FieldPath]?
    var consistency: FirestoreStore.Consistency = .latest
}

/// ListDocuments.
struct ListDocumentsRequest: Sendable {
    var database: DatabaseName
    /// The document the collection hangs from (empty: the root).
    var parent: DocumentPath
    var collectionID: String
    var listing: DocumentListing
    var consistency: FirestoreStore.Consistency = .latest
}

/// One page of ListDocuments.
struct DocumentPage: Sendable {
    /// One entry per listed document: the document, or the path of a missing one that has subcollections.
    var entries: [Entry]
    /// Where the next page starts; `nil` on the last page.
    var next: ListPageToken?

    /// A listed document.
    enum Entry: Sendable {
        /// A document, masked.
        case document(Document)
        /// A missing document with subcollections (`show_missing`).
        case missing(DocumentPath)
    }
}

/// CreateDocument.
struct CreateDocumentRequest: Sendable {
    var database: DatabaseName
    var path: DocumentPath
    var fields: [String: FirestoreValue]
    /// The fields of the new document to return (all when `nil`).
    var mask: [FieldPath]?
}

/// UpdateDocument.
struct UpdateDocumentRequest: Sendable {
    var database: DatabaseName
    var path: DocumentPath
    var fields: [String: FirestoreValue]
    /// Only these paths are set or removed (`nil`: the whole document is replaced).
    var updateMask: [FieldPath]?
    var precondition: Precondition?
    /// The fields of the written document to return (all when `nil`).
    var mask: [FieldPath]?
}

/// DeleteDocument.
struct DeleteDocumentRequest: Sendable {
    var database: DatabaseName
    var path: DocumentPath
    var precondition: Precondition?
}

/// BatchGetDocuments.
struct BatchGetRequest: Sendable {
    var database: DatabaseName
    var paths: [DocumentPath]
    var mask: [FieldPath]?
    var consistency: FirestoreStore.Consistency = .latest
}

/// What BatchGetDocuments answers: each path's document (masked) or `nil` when missing, in request order.
struct BatchGetResult: Sendable {
    var documents: [(path: DocumentPath, document: Document?)]
    var readTime: Timestamp
    /// The transaction begun with `new_transaction`.
    var transaction: [UInt8]?
}

/// Commit.
struct CommitRequest: Sendable {
    var database: DatabaseName
    var writes: [Write]
    var transaction: [UInt8]?
}

/// BatchWrite: each write applied on its own.
struct BatchWriteRequest: Sendable {
    var database: DatabaseName
    var writes: [Write]
}

/// RunQuery.
struct RunQueryRequest: Sendable {
    var database: DatabaseName
    var query: StructuredQuery
    var consistency: FirestoreStore.Consistency = .latest
}

/// What RunQuery answers.
struct QueryResult: Sendable {
    /// The results, in order, projected.
    var documents: [Document]
    var readTime: Timestamp
    /// How many matches the query's offset skipped.
    var skipped: Int
    /// The transaction begun with `new_transaction`.
    var transaction: [UInt8]?
}

/// RunAggregationQuery.
struct RunAggregationQueryRequest: Sendable {
    var database: DatabaseName
    var aggregation: AggregationQuery
    var consistency: FirestoreStore.Consistency = .latest
}

/// What RunAggregationQuery answers: the aggregates by alias.
struct AggregationResult: Sendable {
    var fields: [String: FirestoreValue]
    var readTime: Timestamp
    /// The transaction begun with `new_transaction`.
    var transaction: [UInt8]?
}

/// PartitionQuery.
struct PartitionQueryRequest: Sendable {
    var database: DatabaseName
    var query: StructuredQuery
    /// How many parts the results are split into, at most.
    var partitionCount: Int64
    var consistency: FirestoreStore.Consistency = .latest
}

/// ListCollectionIds.
struct ListCollectionIDsRequest: Sendable {
    var database: DatabaseName
    /// The document whose collections are listed (empty: the root's).
    var parent: DocumentPath
    /// The most ids per page (`Int.max`: no limit).
    var pageSize: Int
    /// The last id of the previous page.
    var after: String?
}

/// One page of ListCollectionIds.
struct CollectionIDPage: Sendable {
    var ids: [String]
    /// Where the next page starts; `nil` on the last page.
    var next: ListPageToken?
}
