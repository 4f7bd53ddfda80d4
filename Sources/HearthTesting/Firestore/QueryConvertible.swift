import FirestoreEmulator
import FirestoreWire
import GRPCCore
import SwiftProtobuf

/// Something that reads as a query: a `Query`, or a `CollectionReference` (all of its documents). Gives both
/// the SDKs' query methods.
public protocol QueryConvertible: Sendable {
    /// The query.
    var query: Query { get }
}

extension QueryConvertible {
    /// Only documents whose `field` (a dot-separated path) equals `value` (`== nil` matches null).
    public func whereField(_ field: String, isEqualTo value: FirestoreValue) -> Query {
        filtered(field, .equal, value)
    }

    /// Only documents whose `field` exists and does not equal `value` (`!= nil` matches non-null values).
    public func whereField(_ field: String, isNotEqualTo value: FirestoreValue) -> Query {
        filtered(field, .notEqual, value)
    }

    /// Only documents whose `field` is less than `value` (of the same type).
    public func whereField(_ field: String, isLessThan value: FirestoreValue) -> Query {
        filtered(field, .lessThan, value)
    }

    /// Only documents whose `field` is at most `value` (of the same type).
    public func whereField(_ field: String, isLessThanOrEqualTo value: FirestoreValue) -> Query {
        filtered(field, .lessThanOrEqual, value)
    }

    /// Only documents whose `field` is greater than `value` (of the same type).
    public func whereField(_ field: String, isGreaterThan value: FirestoreValue) -> Query {
        filtered(field, .greaterThan, value)
    }

    /// Only documents whose `field` is at least `value` (of the same type).
    public func whereField(_ field: String, isGreaterThanOrEqualTo value: FirestoreValue) -> Query {
        filtered(field, .greaterThanOrEqual, value)
    }

    /// Only documents whose `field` is an array containing `value`.
    public func whereField(_ field: String, arrayContains value: FirestoreValue) -> Query {
        filtered(field, .arrayContains, value)
    }

    /// Only documents whose `field` equals one of `values` (at most 30).
    public func whereField(_ field: String, in values: [FirestoreValue]) -> Query {
        filtered(field, .in, .array(values))
    }

    /// Results sorted by `field` (a dot-separated path; documents without it are left out), after any
    /// earlier orders.
    public func order(by field: String, descending: Bool = false) -> Query {
        var query = query
        query.orders.append(Query.Order(field: FieldPath(dotted: field), descending: descending))
        return query
    }

    /// At most the first `count` results.
    public func limit(to count: Int) -> Query {
        var query = query
        query.limit = Int32(clamping: count)
        return query
    }

    /// Runs the query once (`RunQuery`).
    public func getDocuments() async throws(ClientError) -> QuerySnapshot {
        let query = query
        let client = query.client
        var request = Google_Firestore_V1_RunQueryRequest()
        (request.parent, request.structuredQuery) = try query.request()
        let responses = try await client.call { [metadata = client.metadata] in
            try await $0.runQuery(request, metadata: metadata, options: FirestoreClient.options()) { response in
                try await response.messages.reduce(into: []) { $0.append($1) }
            }
        }
        let documents = responses.filter(\.hasDocument).map { DocumentSnapshot($0.document, root: client.root) }
        return QuerySnapshot(
            documents: documents, documentChanges: documents.map { DocumentChange(kind: .added, document: $0) },
            readTime: Timestamp(responses.last?.readTime ?? .init()))
    }

    /// The results now and after every change, from a `Listen` stream with a query target: each snapshot is
    /// consistent (the server marked it so) and lists what changed since the previous one. Ends with a
    /// `ClientError` if the rules refuse the query or the connection fails; ending the iteration ends the
    /// stream.
    public func snapshots() -> AsyncThrowingStream<QuerySnapshot, any Error> {
        let query = query
        var target = Google_Firestore_V1_Target()
        do {
            (target.query.parent, target.query.structuredQuery) = try query.request()
        } catch {
            return AsyncThrowingStream { $0.finish(throwing: error) }
        }
        return query.client.listen(target, order: query.ordering) { $0 }
    }

    private func filtered(
        _ field: String, _ op: Google_Firestore_V1_StructuredQuery.FieldFilter.Operator, _ value: FirestoreValue
    ) -> Query {
        var query = query
        query.filters.append(Query.Filter(field: FieldPath(dotted: field), op: op, value: value))
        return query
    }
}
