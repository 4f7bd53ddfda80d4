import EmulatorCore

extension StructuredQuery {
    /// The most values an IN or ARRAY_CONTAINS_ANY filter may list, and the most disjunctions a query's
    /// filter may expand to.
    static let maximumDisjunctions = 30
    /// The most values a NOT_IN filter may list.
    static let maximumNotInValues = 10

    /// Checks the query as production does, throwing its INVALID_ARGUMENT messages (quoted where production's
    /// wording is known).
    func validate() throws(FirestoreError) {
        if collectionID.isEmpty {
            // A kindless query (no collection id, all descendants) is what the Node.js SDK's recursiveDelete sends.
            guard allDescendants else {
                throw FirestoreError(.invalidArgument, "A query must select a collection: from[0].collection_id is empty.")
            }
        } else {
            try DocumentPath.validateID(collectionID)
        }
        if let filter { try Self.validate(filter) }
        try validateOrders()
        for cursor in [startAt, endAt].compactMap({ $0 }) { try validate(cursor) }
        if offset < 0 { throw FirestoreError(.invalidArgument, "offset is negative") }
        if let limit, limit < 0 { throw FirestoreError(.invalidArgument, "limit is negative") }
        try findNearest?.validate(in: self)
    }

    /// The filter's operands, then the combination rules over the whole tree.
    private static func validate(_ filter: QueryFilter) throws(FirestoreError) {
        try validateOperands(of: filter)
        let shape = FilterShape(filter)
        if shape.negations > 1 {
            throw FirestoreError(
                .invalidArgument, "Only a single 'NOT_EQUAL', 'NOT_IN', 'IS_NOT_NAN', or 'IS_NOT_NULL' filter allowed per query.")
        }
        if shape.hasNotIn, shape.isDisjunctive {
            throw FirestoreError(.invalidArgument, "'NOT_IN' cannot be used in the same query with 'IN', 'ARRAY_CONTAINS_ANY' or 'OR'.")
        }
        if shape.disjunctions > maximumDisjunctions {
            throw FirestoreError(
                .invalidArgument,
                "Too many disjunctions after normalization. Result had \(shape.disjunctions) disjunctions which is more than the maximum of \(maximumDisjunctions)")
        }
        if shape.arrayContainsPerDisjunction > 1 {
            throw FirestoreError(.invalidArgument, "A maximum of 1 'ARRAY_CONTAINS' filter is allowed per disjunction.")
        }
    }

    /// Each filter on its own: list operands, `__name__` operands, empty disjunctions.
    private static func validateOperands(of filter: QueryFilter) throws(FirestoreError) {
        switch filter {
        case .composite(let op, let filters):
            if op == .or, filters.isEmpty {
                throw FirestoreError(.invalidArgument, "Composite filter must have at least one sub-filter.")
            }
            for filter in filters { try validateOperands(of: filter) }
        case .unary(let field, _):
            if field == .documentName { throw FirestoreError(.invalidArgument, "__key__ filter value must be a Key") }
        case .field(let field, let op, let value):
            var operands = [value]
            if op == .in || op == .notIn || op == .arrayContainsAny {
                guard case .array(let values) = value else {
                    throw FirestoreError(.invalidArgument, "'\(op.rawValue)' requires an ArrayValue.")
                }
                guard !values.isEmpty else {
                    throw FirestoreError(.invalidArgument, "'\(op.rawValue)' requires an non-empty ArrayValue.")
                }
                let maximum = op == .notIn ? maximumNotInValues : maximumDisjunctions
                guard values.count <= maximum else {
                    throw FirestoreError(.invalidArgument, "'\(op.rawValue)' supports up to \(maximum) comparison values.")
                }
                operands = values
            }
            guard field == .documentName else { return }
            if op == .arrayContains || op == .arrayContainsAny {
                throw FirestoreError(.invalidArgument, "the name __key__ is reserved")
            }
            for operand in operands {
                guard case .reference(let name) = operand else {
                    throw FirestoreError(.invalidArgument, "__key__ filter value must be a Key")
                }
                if let (_, path) = DocumentPath.parse(reference: name), !path.isDocument {
                    throw FirestoreError(.invalidArgument, "Resource name \"\(name)\" lacks \"/\" at index \(name.utf16.count).")
                }
            }
        }
    }

    /// No field ordered twice, nothing ordered after `__name__` (the implicit orders included).
    private func validateOrders() throws(FirestoreError) {
        var seen = Set<FieldPath>()
        for order in orderBy where !seen.insert(order.field).inserted {
            throw FirestoreError(.invalidArgument, "order by clause cannot contain duplicate fields \(order.field)")
        }
        let order = normalizedOrder
        if let key = order.firstIndex(where: { $0.field == .documentName }), key + 1 < order.count {
            throw FirestoreError(.invalidArgument, "Order by clause cannot contain more fields after the key \(order[key + 1].field)")
        }
    }

    /// At most one value per explicit order (production counts neither the implicit `__name__` nor the
    /// inequality fields' orders), and a document reference at every `__name__` position.
    private func validate(_ cursor: QueryCursor) throws(FirestoreError) {
        guard cursor.values.count <= orderBy.count else {
            throw FirestoreError(.invalidArgument, "Cursor has too many values.")
        }
        for (value, order) in zip(cursor.values, orderBy) where order.field == .documentName {
            guard case .reference(let name) = value, let (_, path) = DocumentPath.parse(reference: name) else {
                throw FirestoreError(.invalidArgument, "Cursor __key__ value is not a document reference.")
            }
            guard path.isDocument else {
                throw FirestoreError(.invalidArgument, "Document parent name \"\(name)\" lacks \"/\" at index \(name.utf16.count).")
            }
        }
    }
}

/// What production's limits look at in a filter tree, counted without expanding it to disjunctive normal form.
private struct FilterShape {
    /// NOT_EQUAL, NOT_IN, IS_NOT_NAN and IS_NOT_NULL filters.
    var negations = 0
    /// Whether a NOT_IN filter appears.
    var hasNotIn = false
    /// Whether an IN, ARRAY_CONTAINS_ANY or OR (of two filters or more) appears.
    var isDisjunctive = false
    /// How many disjunctions the filter expands to (IN and ARRAY_CONTAINS_ANY expand to one per value),
    /// saturating past the limit.
    var disjunctions = 1
    /// The most ARRAY_CONTAINS and ARRAY_CONTAINS_ANY filters in one disjunction.
    var arrayContainsPerDisjunction = 0

    init(_ filter: QueryFilter) {
        switch filter {
        case .field(_, let op, let value):
            negations = op == .notEqual || op == .notIn ? 1 : 0
            hasNotIn = op == .notIn
            isDisjunctive = op == .in || op == .arrayContainsAny
            if isDisjunctive, case .array(let values) = value { disjunctions = values.count }
            arrayContainsPerDisjunction = op == .arrayContains || op == .arrayContainsAny ? 1 : 0
        case .unary(_, let op):
            negations = op == .isNotNaN || op == .isNotNull ? 1 : 0
        case .composite(let op, let filters):
            let parts = filters.map(FilterShape.init)
            negations = parts.reduce(0) { $0 + $1.negations }
            hasNotIn = parts.contains { $0.hasNotIn }
            isDisjunctive = (op == .or && filters.count > 1) || parts.contains { $0.isDisjunctive }
            let cap = StructuredQuery.maximumDisjunctions + 1
            if op == .and {
                disjunctions = parts.reduce(1) { min($0 * $1.disjunctions, cap) }
                arrayContainsPerDisjunction = parts.reduce(0) { $0 + $1.arrayContainsPerDisjunction }
            } else {
                disjunctions = parts.reduce(0) { min($0 + $1.disjunctions, cap) }
                arrayContainsPerDisjunction = parts.map(\.arrayContainsPerDisjunction).max() ?? 0
            }
        }
    }
}
