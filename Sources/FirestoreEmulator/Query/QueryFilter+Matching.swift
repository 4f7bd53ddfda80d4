extension QueryPlan {
    /// A `where` filter ready to run: comparisons of `__name__` with references into the queried database
    /// hold parsed paths, so they compare paths instead of building each document's name.
    indirect enum Filter: Sendable {
        /// A comparison of a field (or of `__name__` with operands that did not resolve) with a value.
        case field(FieldPath, FieldOperator, FirestoreValue)
        /// A comparison of the document's path with the paths of its operands (one, or the list of IN/NOT_IN).
        case name(FieldOperator, [DocumentPath])
        /// A test of a field alone.
        case unary(FieldPath, UnaryOperator)
        /// Several filters joined by AND or OR.
        case composite(CompositeOperator, [Filter])

        /// Prepares `filter` for documents of `database`.
        init(_ filter: QueryFilter, in database: DatabaseName) {
            switch filter {
            case .field(let field, let op, let value):
                if field == .documentName, let paths = Self.namePaths(op, value, in: database) {
                    self = .name(op, paths)
                } else {
                    self = .field(field, op, value)
                }
            case .unary(let field, let op):
                self = .unary(field, op)
            case .composite(let op, let filters):
                self = .composite(op, filters.map { Filter($0, in: database) })
            }
        }

        /// Whether `document` (of `database`) satisfies the filter.
        func matches(_ document: Document, in database: DatabaseName) -> Bool {
            switch self {
            case .field(let field, let op, let operand):
                return op.matches(document.value(at: field, in: database), operand: operand)
            case .name(let op, let operands):
                return op.matches(name: document.path, operands)
            case .unary(let field, let op):
                return op.matches(document.value(at: field, in: database))
            case .composite(.and, let filters):
                return filters.allSatisfy { $0.matches(document, in: database) }
            case .composite(.or, let filters):
                return filters.contains { $0.matches(document, in: database) }
            }
        }

        /// The path of a reference into `database`.
        static func path(of value: FirestoreValue, in database: DatabaseName) -> DocumentPath? {
            guard case .reference(let name) = value, let (owner, path) = DocumentPath.parse(reference: name),
                owner == database
            else { return nil }
            return path
        }

        /// The operands' paths when every operand is a reference into `database`, else `nil`.
        private static func namePaths(_ op: FieldOperator, _ value: FirestoreValue, in database: DatabaseName)
            -> [DocumentPath]?
        {
            switch op {
            case .arrayContains, .arrayContainsAny:
                return nil
            case .in, .notIn:
                guard case .array(let values) = value else { return nil }
                var paths: [DocumentPath] = []
                for value in values {
                    guard let path = path(of: value, in: database) else { return nil }
                    paths.append(path)
                }
                return paths
            case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .equal, .notEqual:
                return path(of: value, in: database).map { [$0] }
            }
        }
    }
}

extension FieldOperator {
    /// Whether a field's value (`nil` when the field is missing) satisfies the comparison with `operand`, as
    /// the SDKs evaluate it locally: comparisons only within a type class (integers and doubles together,
    /// NaN below every other number); equality by value (1 == 1.0, NaN equal to nothing); NOT_EQUAL and
    /// NOT_IN never match a missing or null field, and NOT_IN nothing at all when its list holds null.
    func matches(_ value: FirestoreValue?, operand: FirestoreValue) -> Bool {
        guard let value else { return false }
        switch self {
        case .equal: return value == operand
        case .notEqual: return !value.isNull && !(value == operand)
        case .lessThan: return Self.compare(value, operand).map { $0 < 0 } ?? false
        case .lessThanOrEqual: return Self.compare(value, operand).map { $0 <= 0 } ?? false
        case .greaterThan: return Self.compare(value, operand).map { $0 > 0 } ?? false
        case .greaterThanOrEqual: return Self.compare(value, operand).map { $0 >= 0 } ?? false
        case .arrayContains:
            guard case .array(let elements) = value else { return false }
            return elements.contains(operand)
        case .arrayContainsAny:
            guard case .array(let elements) = value, case .array(let operands) = operand else { return false }
            return elements.contains { operands.contains($0) }
        case .in:
            guard case .array(let operands) = operand else { return false }
            return operands.contains(value)
        case .notIn:
            guard case .array(let operands) = operand, !value.isNull, !operands.contains(.null) else { return false }
            return !operands.contains(value)
        }
    }

    /// Whether a document at `path` satisfies the comparison of `__name__` with the operands' paths (names
    /// are never null; equality is exact, order is document name order).
    func matches(name path: DocumentPath, _ operands: [DocumentPath]) -> Bool {
        switch self {
        case .equal: return operands.first == path
        case .notEqual: return operands.first != path
        case .in: return operands.contains(path)
        case .notIn: return !operands.contains(path)
        case .lessThan: return operands.first.map { path.compare(to: $0) < 0 } ?? false
        case .lessThanOrEqual: return operands.first.map { path.compare(to: $0) <= 0 } ?? false
        case .greaterThan: return operands.first.map { path.compare(to: $0) > 0 } ?? false
        case .greaterThanOrEqual: return operands.first.map { path.compare(to: $0) >= 0 } ?? false
        case .arrayContains, .arrayContainsAny: return false
        }
    }

    /// The order of `value` relative to `operand` when both are of one type class, else `nil`.
    private static func compare(_ value: FirestoreValue, _ operand: FirestoreValue) -> Int? {
        value.typeOrder == operand.typeOrder ? FirestoreValue.compare(value, operand) : nil
    }
}

extension UnaryOperator {
    /// Whether a field's value (`nil` when missing) passes the test: IS_NAN and IS_NULL need that value;
    /// IS_NOT_NAN and IS_NOT_NULL need the field present and not null (IS_NOT_NAN also not NaN).
    func matches(_ value: FirestoreValue?) -> Bool {
        guard let value else { return false }
        switch self {
        case .isNaN: return value.isNaN
        case .isNull: return value.isNull
        case .isNotNaN: return !value.isNull && !value.isNaN
        case .isNotNull: return !value.isNull
        }
    }
}

extension FirestoreValue {
    /// Whether the value is `null`.
    fileprivate var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}
