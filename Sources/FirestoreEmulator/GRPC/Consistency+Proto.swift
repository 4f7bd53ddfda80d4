import FirestoreWire
import Foundation
import SwiftProtobuf

/// A read request's `consistency_selector` as the store's consistency. Each request has its own generated
/// type for it; each maps its cases onto the one reading of the parts here.
extension FirestoreStore.Consistency {
    /// The consistency of whichever part is set (the latest state when none is).
    private init(
        transaction: Data? = nil, newTransaction: Google_Firestore_V1_TransactionOptions? = nil,
        readTime: Google_Protobuf_Timestamp? = nil
    ) {
        if let transaction {
            self = .transaction(Array(transaction))
        } else if let newTransaction {
            self = .newTransaction(TransactionMode(proto: newTransaction))
        } else if let readTime {
            self = .readTime(Timestamp(seconds: readTime.seconds, nanos: readTime.nanos))
        } else {
            self = .latest
        }
    }

    /// RunQuery's.
    init(_ selector: Google_Firestore_V1_RunQueryRequest.OneOf_ConsistencySelector?) {
        switch selector {
        case .transaction(let id): self.init(transaction: id)
        case .newTransaction(let options): self.init(newTransaction: options)
        case .readTime(let time): self.init(readTime: time)
        case nil: self.init()
        }
    }

    /// RunAggregationQuery's.
    init(_ selector: Google_Firestore_V1_RunAggregationQueryRequest.OneOf_ConsistencySelector?) {
        switch selector {
        case .transaction(let id): self.init(transaction: id)
        case .newTransaction(let options): self.init(newTransaction: options)
        case .readTime(let time): self.init(readTime: time)
        case nil: self.init()
        }
    }

    /// BatchGetDocuments'.
    init(_ selector: Google_Firestore_V1_BatchGetDocumentsRequest.OneOf_ConsistencySelector?) {
        switch selector {
        case .transaction(let id): self.init(transaction: id)
        case .newTransaction(let options): self.init(newTransaction: options)
        case .readTime(let time): self.init(readTime: time)
        case nil: self.init()
        }
    }

    /// GetDocument's.
    init(_ selector: Google_Firestore_V1_GetDocumentRequest.OneOf_ConsistencySelector?) {
        switch selector {
        case .transaction(let id): self.init(transaction: id)
        case .readTime(let time): self.init(readTime: time)
        case nil: self.init()
        }
    }

    /// ListDocuments'.
    init(_ selector: Google_Firestore_V1_ListDocumentsRequest.OneOf_ConsistencySelector?) {
        switch selector {
        case .transaction(let id): self.init(transaction: id)
        case .readTime(let time): self.init(readTime: time)
        case nil: self.init()
        }
    }
}
