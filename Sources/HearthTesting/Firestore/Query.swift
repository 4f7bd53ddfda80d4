import FirestoreEmulator
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

    /// The collection queried.
    let collection: CollectionReference
    var filters: [Filter] = []
    var orders: [Order] = []
    var limit: Int32?

    /// The query itself.
    public var query: Query { self }

    /// The client the query runs with.
    var client: FirestoreClient { collection.client }

    /// The resource name of the document the collection is under (the documents root for a top-level
    /// collection) and the query for the wire. A collection path that is not one, or a sentinel among the
    /// filter values, is an invalid argument.
    func request() throws(ClientError) -> (parent: String, query: Google_Firestore_V1_StructuredQuery) {
        try collection.validate()
        var query = Google_Firestore_V1_StructuredQuery()
        query.from = [.with { $0.collectionID = collection.collectionID }]
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
                $0.field.fieldPath = order.field.description
                $0.direction = order.descending ? .descending : .ascending
            }
        }
        if let limit { query.limit = .with { $0.value = limit } }
        return (client.name(collection.path.split(separator: "/").dropLast().joined(separator: "/")), query)
    }

    /// The order the server returns results in, as the SDKs normalize it: the explicit orders, then each
    /// field with an inequality filter not already ordered (in field path order, in the direction of the
    /// last explicit order), then the document name.
    var normalizedOrders: [Order] {
        var result = orders
        let direction = orders.last?.descending ?? false
        let inequalities = Set(filters.filter(\.isInequality).map(\.field)).subtracting(orders.map(\.field))
        result += inequalities.sorted().map { Order(field: $0, descending: direction) }
        if !result.contains(where: { $0.field == .documentName }) {
            result.append(Order(field: .documentName, descending: result.last?.descending ?? false))
        }
        return result
    }

    /// Whether one result comes before another in the query's order.
    var ordering: @Sendable (DocumentSnapshot, DocumentSnapshot) -> Bool {
        let orders = normalizedOrders
        return { first, second in
            for order in orders {
                let result =
                    order.field == .documentName
                    ? FirestoreValue.comparePaths(first.path, second.path)
                    : FirestoreValue.compare(
                        order.field.value(in: first.data ?? [:]) ?? .null,
                        order.field.value(in: second.data ?? [:]) ?? .null)
                if result != 0 { return (result < 0) != order.descending }
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
                $0.field.fieldPath = field.description
            }
        } else {
            filter.fieldFilter = .with {
                $0.op = op
                $0.field.fieldPath = field.description
            }
            filter.fieldFilter.value = try value.proto(root: root)
        }
        return filter
    }
}
