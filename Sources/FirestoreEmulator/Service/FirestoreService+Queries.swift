import EmulatorCore

/// The operations on a query parent (the documents root or a document): RunQuery, RunAggregationQuery,
/// PartitionQuery, ListCollectionIds.
extension FirestoreService {
    /// RunQuery: the results in order, and how many the offset skipped.
    func runQuery(_ request: RunQueryRequest, _ context: CallContext) throws(FirestoreError) -> QueryResult {
        let query = request.query
        try indexes.check(query, in: request.database)
        store.prepareIndexes(for: query, in: request.database)
        let ((documents, skipped), stamp) = try store.read(request.database, consistency: request.consistency) {
            (view: inout DatabaseView) throws(FirestoreError) -> ([Document], Int) in
            try rules.authorizeQuery(query, credential: context.credential, view: view, time: context.now)
            return (view.run(query), Self.skippedCount(of: query, in: &view))
        }
        return QueryResult(documents: documents, readTime: stamp.readTime, skipped: skipped, transaction: stamp.transaction)
    }

    /// How many matches `query`'s offset skipped (production's `skipped_results`).
    private static func skippedCount(of query: StructuredQuery, in view: inout DatabaseView) -> Int {
        guard query.offset > 0 else { return 0 }
        var skipping = query
        skipping.offset = 0
        skipping.limit = query.offset
        skipping.projection = []
        return view.run(skipping).count
    }

    /// RunAggregationQuery: the aggregates over the query's results.
    func runAggregationQuery(_ request: RunAggregationQueryRequest, _ context: CallContext) throws(FirestoreError)
        -> AggregationResult
    {
        let aggregation = request.aggregation
        try indexes.check(aggregation.query, in: request.database)
        store.prepareIndexes(for: aggregation.query, totaling: aggregation.aggregations.compactMap(\.field), in: request.database)
        let (fields, stamp) = try store.read(request.database, consistency: request.consistency) {
            (view: inout DatabaseView) throws(FirestoreError) -> [String: FirestoreValue] in
            try rules.authorizeQuery(aggregation.query, credential: context.credential, view: view, time: context.now)
            // Aggregations a field index covers are computed on it, no document read.
            if let fields = view.indexedAggregates(aggregation.aggregations, of: aggregation.query) { return fields }
            return Aggregation.evaluate(aggregation.aggregations, over: view.run(aggregation.query))
        }
        return AggregationResult(fields: fields, readTime: stamp.readTime, transaction: stamp.transaction)
    }

    /// PartitionQuery: up to `partitionCount - 1` documents that split the query's results into parts of
    /// similar size, as cursors; the query must order by name only.
    func partitionQuery(_ request: PartitionQueryRequest, _ context: CallContext) throws(FirestoreError) -> [DocumentPath] {
        let query = request.query
        guard query.orderBy.allSatisfy({ $0 == QueryOrder(field: .documentName) }), query.filter == nil else {
            throw FirestoreError(.invalidArgument, "Partition queries support only ordering by __name__ ascending and no filters.")
        }
        guard request.partitionCount >= 1 else {
            throw FirestoreError(.invalidArgument, "partition_count must be positive.")
        }
        let (documents, _) = try store.read(request.database, consistency: request.consistency) {
            (view: inout DatabaseView) throws(FirestoreError) -> [Document] in
            try rules.authorizeQuery(query, credential: context.credential, view: view, time: context.now)
            return view.run(query)
        }
        let parts = Int(min(request.partitionCount, Int64(max(documents.count, 1))))
        guard parts > 1 else { return [] }
        return (1..<parts).map { documents[$0 * documents.count / parts].path }
    }

    /// ListCollectionIds: the non-empty collections under the root or a document, sorted, paged.
    /// Admin-only when the project has rules, as production's client SDKs cannot call it.
    func listCollectionIDs(_ request: ListCollectionIDsRequest, _ context: CallContext) throws(FirestoreError)
        -> CollectionIDPage
    {
        if context.credential != .owner, rules.ruleset(for: request.database.project) != nil {
            throw FirestoreError.permissionDenied
        }
        let (ids, _) = try store.read(request.database) { (view: inout DatabaseView) throws(FirestoreError) -> [String] in
            view.state.collectionIDs(under: request.parent)
        }
        let remaining = request.after.map { token in ids.filter { SortedIDs.precedes(token, $0) } } ?? ids
        let page = Array(remaining.prefix(request.pageSize))
        let next = remaining.count > page.count ? page.last.map { ListPageToken(afterID: $0) } : nil
        return CollectionIDPage(ids: page, next: next)
    }
}
