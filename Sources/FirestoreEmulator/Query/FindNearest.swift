import EmulatorCore

/// Vector search (`StructuredQuery.find_nearest`): the documents whose vector field is nearest a query vector,
/// among those the query's filter admits, as Google's official emulator (1.19.9) answers it. Recorded answers:
/// `conformance/differential/corpus/vector_search.json`.
///
/// - A document takes part when its field is a vector of the query vector's dimension; others are skipped.
///   The field is a top-level one: with a nested path (`m.v`) the official emulator finds nothing.
/// - EUCLIDEAN and COSINE rank the smallest distance first, DOT_PRODUCT the largest; NaN counts as the
///   largest; ties keep the query's own order (its `order_by`, then the document name).
/// - `distance_threshold` keeps distances at most it (EUCLIDEAN, COSINE) or at least it (DOT_PRODUCT).
/// - `distance_result_field` is a field *name* (not a path: `a.b` is one top-level field) that each result
///   carries its distance in, replacing a field of that name; a projection (`select`) leaves it out.
/// - A listen target with `find_nearest` gets the nearest documents (with their distances) and follows them
///   as changes move documents in and out, as the official emulator's listeners do.
struct FindNearest: Sendable, Equatable {
    /// How distances are measured.
    enum Measure: String, Sendable, CaseIterable {
        case euclidean = "EUCLIDEAN"
        case cosine = "COSINE"
        case dotProduct = "DOT_PRODUCT"
    }

    /// The most results, and the most a vector may have dimensions.
    static let maximumLimit = 1000
    static let maximumDimensions = 2048

    /// The field holding each document's vector.
    var vectorField: FieldPath
    /// The vector searched for.
    var queryVector: [Double]
    var measure: Measure
    /// How many results at most (1...1000).
    var limit: Int
    /// The field name each result carries its distance in.
    var distanceResultField: String?
    /// The farthest (EUCLIDEAN, COSINE) or lowest (DOT_PRODUCT) distance a result may have.
    var distanceThreshold: Double?

    /// Checks the search with the official emulator's messages, in its order: limit, an unset query vector,
    /// measure, vector field, the query vector's type and shape, threshold. `queryVector` is the decoded `query_vector` (`nil` when unset).
    static func validated(
        vectorField: String, queryVector: FirestoreValue?, measure: Measure?, limit: Int64?,
        distanceResultField: String?, distanceThreshold: Double?
    ) throws(FirestoreError) -> FindNearest {
        guard let limit, limit > 0, limit <= Int64(maximumLimit) else {
            throw FirestoreError(.invalidArgument, "FindNearest.limit must be a positive integer of no more than 1000")
        }
        guard let queryVector else {
            throw FirestoreError(.invalidArgument, "Cannot convert firestore.v1.Value with type unset.")
        }
        guard let measure else { throw FirestoreError(.invalidArgument, "Unknown Distance Measure.") }
        guard !vectorField.isEmpty else { throw FirestoreError(.invalidArgument, "Invalid empty property path string.") }
        let field = try FieldPath(validating: vectorField)
        guard case .map(let fields) = queryVector, FirestoreValue.isVector(fields) else {
            throw FirestoreError(.invalidArgument, "Query Value must be of type vector.")
        }
        let components = try Self.components(of: fields, allowingNaN: true)
        if let distanceThreshold, !distanceThreshold.isFinite {
            throw FirestoreError(.invalidArgument, "distanceThreshold must be a finite number.")
        }
        return FindNearest(
            vectorField: field, queryVector: components, measure: measure, limit: Int(limit),
            distanceResultField: distanceResultField.flatMap { $0.isEmpty ? nil : $0 }, distanceThreshold: distanceThreshold)
    }

    /// The components of a vector value's fields (`__type__` and `value`), checked as the official emulator
    /// checks a vector written to a document (where NaN is refused) or searched for (where it is not).
    static func components(of fields: [String: FirestoreValue], allowingNaN: Bool) throws(FirestoreError) -> [Double] {
        guard let value = fields["value"] else {
            throw FirestoreError(.invalidArgument, "Vector map is missing key 'value'.")
        }
        guard fields.count == 2 else { throw FirestoreError(.invalidArgument, "Vector Value map has extraneous entries.") }
        guard case .array(let elements) = value else {
            throw FirestoreError(.invalidArgument, "Vector Value type must be an array.")
        }
        guard !elements.isEmpty else { throw FirestoreError(.invalidArgument, "Cannot have a zero length vector.") }
        guard elements.count <= maximumDimensions else {
            throw FirestoreError(.invalidArgument, "Vectors must be at most \(maximumDimensions) dimensions.")
        }
        var components: [Double] = []
        components.reserveCapacity(elements.count)
        for element in elements {
            guard case .double(let component) = element else {
                throw FirestoreError(.invalidArgument, "Vector must only contain values of type 'double'")
            }
            if component.isNaN, !allowingNaN { throw FirestoreError(.invalidArgument, "Vector cannot contain NaN values.") }
            components.append(component)
        }
        return components
    }

    /// The query's rules beside a search: no limit, offset or cursor of its own (validated cursors only: one
    /// with more values than orders fails as in any query first), and no explicit descending order by name
    /// (the official emulator's answer; a descending order by a field, whose implicit name order descends
    /// too, is accepted).
    func validate(in query: StructuredQuery) throws(FirestoreError) {
        if query.orderBy.contains(QueryOrder(field: .documentName, descending: true)) {
            throw FirestoreError(.invalidArgument, "Firestore does not support descending key scans")
        }
        if query.limit != nil { throw FirestoreError(.invalidArgument, "A query limit cannot be used with FindNearest") }
        if query.offset != 0 { throw FirestoreError(.invalidArgument, "A query offset cannot be used with FindNearest") }
        if query.startAt != nil || query.endAt != nil {
            throw FirestoreError(.invalidArgument, "A cursor cannot be used with FindNearest")
        }
    }

    /// The distance from the query vector to `vector` (of the same dimension), computed as the official
    /// emulator computes it, to the last bit: squared differences summed with fused multiply-adds for
    /// EUCLIDEAN; for COSINE, one minus the dot product over the root of the product of the squared norms.
    func distance(to vector: [Double]) -> Double {
        switch measure {
        case .euclidean:
            var sum = 0.0
            for (a, b) in zip(queryVector, vector) { sum.addProduct(a - b, a - b) }
            return sum.squareRoot()
        case .cosine:
            var dot = 0.0
            var queryNorm = 0.0
            var norm = 0.0
            for (a, b) in zip(queryVector, vector) {
                dot += a * b
                queryNorm += a * a
                norm += b * b
            }
            return 1 - dot / (queryNorm * norm).squareRoot()
        case .dotProduct:
            var dot = 0.0
            for (a, b) in zip(queryVector, vector) { dot += a * b }
            return dot
        }
    }

    /// Whether distance `a` ranks before `b`; `nil` when they tie (equal, or both NaN). NaN counts as
    /// above every number (Java's `Double.compare`): last for EUCLIDEAN and COSINE, first for DOT_PRODUCT.
    private func ranks(_ a: Double, before b: Double) -> Bool? {
        if a.isNaN || b.isNaN { return a.isNaN == b.isNaN ? nil : a.isNaN == (measure == .dotProduct) }
        if a == b { return nil }
        return measure == .dotProduct ? a > b : a < b
    }

    /// Whether `distance` passes the threshold.
    private func admits(_ distance: Double) -> Bool {
        guard let distanceThreshold else { return true }
        return measure == .dotProduct ? distance >= distanceThreshold : distance <= distanceThreshold
    }

    /// The nearest of `documents` (the query's matches in its own order), at most `limit`, each with its
    /// distance in `distanceResultField` when there is one.
    func nearest(among documents: [Document], in database: DatabaseName) -> [Document] {
        var ranked: [(distance: Double, position: Int, document: Document)] = []
        // The official emulator finds the vector at a top-level field only: a nested path matches nothing.
        guard vectorField.segments.count == 1 else { return [] }
        for (position, document) in documents.enumerated() {
            guard case .map(let fields)? = document.value(at: vectorField, in: database), FirestoreValue.isVector(fields),
                case .array(let elements)? = fields["value"], elements.count == queryVector.count
            else { continue }
            let vector = elements.map { $0.number ?? .nan }
            let distance = distance(to: vector)
            if admits(distance) { ranked.append((distance, position, document)) }
        }
        ranked.sort { a, b in ranks(a.distance, before: b.distance) ?? (a.position < b.position) }
        return ranked.prefix(limit).map { entry in
            guard let distanceResultField else { return entry.document }
            var document = entry.document
            document.fields[distanceResultField] = .double(entry.distance)
            return document
        }
    }
}
