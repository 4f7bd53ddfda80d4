import FirestoreWire
import Foundation
import SwiftProtobuf

/// A query over one collection's documents: filters (all must match), an order and a limit. Build it from a
/// `CollectionReference` with `whereField`, `order(by:)` and `limit(to:)`; read it with `getDocuments()` or
/// listen with `snapshots()`.
public struct Query: QueryConvertible {
    /// One `field op value` condition.
    struct Filter: Sendable {
        var field: FieldPath
        var op: Google_Firestore_V1_StructuredQuery.FieldFilter.Operator
        var value: FirestoreValue
    }

    /// One sort key.
    struct Order: Sendable {
        var field: FieldPath
        var descending: Bool
    }

    let client: FirestoreClient
    /// The path of the document the collection is under; empty for a top-level collection.
    let parent: String
    let collectionID: String
    var filters: [Filter] = []
    var orders: [Order] = []
    var limit: Int32?

    /// The query itself.
    public var query: Query { self }

    /// The query for the wire. A sentinel among the filter values is an invalid argument.
    func structuredQuery() throws(ClientError) -> Google_Firestore_V1_StructuredQuery {
        var query = Google_Firestore_V1_StructuredQuery()
        query.from = [.with { $0.collectionID = collectionID }]
        var conditions: [Google_Firestore_V1_StructuredQuery.Filter] = []
        for filter in filters { conditions.append(try filter.proto(root: client.root)) }
        if conditions.count == 1 {
            query.where = conditions[0]
        } else if conditions.count > 1 {
            query.where.compositeFilter = .with {
                $0.op = .and
                $0.filters = conditions
            }
        }
        query.orderBy = normalizedOrders.map { order in
            .with {
                $0.field.fieldPath = order.field.encoded
                $0.direction = order.descending ? .descending : .ascending
            }
        }
        if let limit { query.limit = .with { $0.value = limit } }
        return query
    }

    /// The order the server returns results in, as the SDKs normalize it: the explicit orders, then each
    /// field with an inequality filter not already ordered (in field path order, in the direction of the
    /// last explicit order), then the document name.
    var normalizedOrders: [Order] {
        var result = orders
        let direction = orders.last?.descending ?? false
        let inequalities = Set(filters.filter(\.isInequality).map(\.field)).subtracting(orders.map(\.field))
        result += inequalities.sorted { FieldPath.precedes($0, $1) }.map { Order(field: $0, descending: direction) }
        if !result.contains(where: { $0.field == .documentID }) {
            result.append(Order(field: .documentID, descending: result.last?.descending ?? false))
        }
        return result
    }

    /// Whether one result comes before another in the query's order.
    var ordering: @Sendable (DocumentSnapshot, DocumentSnapshot) -> Bool {
        let orders = normalizedOrders
        return { first, second in
            for order in orders {
                let result =
                    order.field == .documentID
                    ? FirestoreValue.comparePaths(first.path, second.path)
                    : FirestoreValue.compare(
                        order.field.value(in: first.data ?? [:]) ?? .null,
                        order.field.value(in: second.data ?? [:]) ?? .null)
                if result != .orderedSame { return (result == .orderedAscending) != order.descending }
            }
            return false
        }
    }
}

extension Query.Filter {
    /// Whether the filter is an inequality (`<`, `<=`, `>`, `>=`, `!=`, `not-in`), which orders results.
    var isInequality: Bool {
        [.lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .notEqual, .notIn].contains(op)
    }

    /// The filter for the wire: `== null`, `== NaN` and their negations become unary filters, as the SDKs
    /// send them.
    func proto(root: String) throws(ClientError) -> Google_Firestore_V1_StructuredQuery.Filter {
        var filter = Google_Firestore_V1_StructuredQuery.Filter()
        let unary: Google_Firestore_V1_StructuredQuery.UnaryFilter.Operator? =
            switch (op, value) {
            case (.equal, .null): .isNull
            case (.notEqual, .null): .isNotNull
            case (.equal, .double(let number)) where number.isNaN: .isNan
            case (.notEqual, .double(let number)) where number.isNaN: .isNotNan
            default: nil
            }
        if let unary {
            filter.unaryFilter = .with {
                $0.op = unary
                $0.field.fieldPath = field.encoded
            }
        } else {
            filter.fieldFilter = .with {
                $0.op = op
                $0.field.fieldPath = field.encoded
            }
            filter.fieldFilter.value = try value.proto(root: root)
        }
        return filter
    }
}
