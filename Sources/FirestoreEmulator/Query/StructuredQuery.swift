/// A query over one collection or a collection group (`StructuredQuery` with its `parent`), transport-agnostic.
struct StructuredQuery: Sendable {
    /// The document the queried collections hang from, or the empty path for the database root.
    var parent: DocumentPath
    /// The collection id queried (`from[0].collection_id`).
    var collectionID: String
    /// A collection group query: every collection with `collectionID` below `parent` (`all_descendants`).
    var allDescendants = false
    /// The `where` filter.
    var filter: QueryFilter?
    /// The explicit orders (`order_by`); see `normalizedOrder` for the one applied.
    var orderBy: [QueryOrder] = []
    /// `start_at`.
    var startAt: QueryCursor?
    /// `end_at`.
    var endAt: QueryCursor?
    /// Results skipped after the cursors.
    var offset = 0
    /// The most results returned; `nil` for all.
    var limit: Int?
    /// The projected field paths (`select`); `nil` returns whole documents, an empty list only names.
    var projection: [FieldPath]?
    /// Vector search (`find_nearest`): the nearest of the filter's matches by a vector field.
    var findNearest: FindNearest?
}

/// A `where` clause.
indirect enum QueryFilter: Sendable {
    /// A comparison of a field with a value.
    case field(FieldPath, FieldOperator, FirestoreValue)
    /// A test of a field alone.
    case unary(FieldPath, UnaryOperator)
    /// Several filters joined by AND or OR.
    case composite(CompositeOperator, [QueryFilter])
}

/// `FieldFilter.Operator`, with production's names.
enum FieldOperator: String, Sendable, CaseIterable {
    case lessThan = "LESS_THAN"
    case lessThanOrEqual = "LESS_THAN_OR_EQUAL"
    case greaterThan = "GREATER_THAN"
    case greaterThanOrEqual = "GREATER_THAN_OR_EQUAL"
    case equal = "EQUAL"
    case notEqual = "NOT_EQUAL"
    case arrayContains = "ARRAY_CONTAINS"
    case `in` = "IN"
    case arrayContainsAny = "ARRAY_CONTAINS_ANY"
    case notIn = "NOT_IN"
}

/// `UnaryFilter.Operator`.
enum UnaryOperator: String, Sendable, CaseIterable {
    case isNaN = "IS_NAN"
    case isNull = "IS_NULL"
    case isNotNaN = "IS_NOT_NAN"
    case isNotNull = "IS_NOT_NULL"
}

/// `CompositeFilter.Operator`.
enum CompositeOperator: String, Sendable, CaseIterable {
    case and = "AND"
    case or = "OR"
}

/// One `order_by` entry.
struct QueryOrder: Sendable, Equatable {
    /// The field ordered by (`__name__` for the document name).
    var field: FieldPath
    /// Descending instead of ascending.
    var descending = false
}

/// A `start_at` / `end_at` position: values matching the normalized orders, position by position.
struct QueryCursor: Sendable {
    /// One value per order (a prefix of them).
    var values: [FirestoreValue]
    /// Whether the position is just before the documents equal to `values` (`startAt`, `endBefore`) rather
    /// than just after them (`startAfter`, `endAt`).
    var before: Bool
}

/// An aggregation of a query's results (`StructuredAggregationQuery.Aggregation`).
struct Aggregation: Sendable {
    /// What is computed.
    enum Kind: Sendable {
        /// The number of results, stopping at `upTo`.
        case count(upTo: Int64?)
        /// The sum of a numeric field (integer while every term and the sum fit an int64, else double).
        case sum(FieldPath)
        /// The average of a numeric field as a double; `null` when no document has a number there.
        case average(FieldPath)
    }

    /// The name of the result field (`alias`, `field_1`... when the client gives none).
    var alias: String
    /// What is computed.
    var kind: Kind
}
