import EmulatorCore
import EmulatorHTTP
import Foundation

/// Methods on a query parent (the documents root or a document): RunQuery, RunAggregationQuery,
/// PartitionQuery, ListCollectionIds.
extension FirestoreAPI {
    /// `POST /v1/{parent}:runQuery`: a JSON array of `{document, readTime}`, or one `{readTime}` when nothing
    /// matches; the first element carries a transaction begun with `newTransaction`.
    func runQuery(_ database: DatabaseName, _ parent: DocumentPath, _ call: RESTCall) throws(APIError) -> JSONValue {
        try call.checkBody(allowing: ["structuredQuery", "transaction", "newTransaction", "readTime", "explainOptions"])
        guard let json = call.body["structuredQuery"] else {
            throw .firestore(.invalidArgument, "structured_query is required.")
        }
        try Self.refuseExplain(call)
        let query = try StructuredQuery(json: json, parent: parent)
        let ((documents, skipped), stamp) = try store.read(database, consistency: try call.bodyConsistency()) {
            (view: inout DatabaseView) throws(APIError) -> ([Document], Int) in
            try rules.authorizeQuery(query, credential: call.context.credential, view: view, time: call.context.now)
            return (view.run(query), Self.skippedCount(of: query, in: &view))
        }
        let readTime = JSONValue.string(stamp.readTime.description)
        var responses: [JSONValue] = documents.map { ["document": $0.json(in: database), "readTime": readTime] }
        if responses.isEmpty { responses = [["readTime": readTime]] }
        if skipped > 0, case .object(var first) = responses[0] {
            first["skippedResults"] = .int(Int64(skipped))
            responses[0] = .object(first)
        }
        if let transaction = stamp.transaction {
            // A response carrying the new transaction carries nothing else (RunQueryResponse).
            responses.insert(["transaction": .string(Data(transaction).base64EncodedString())], at: 0)
        }
        return .array(responses)
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

    /// Query explanations (`explainOptions`) are production's query planner's; the emulator has none.
    private static func refuseExplain(_ call: RESTCall) throws(APIError) {
        guard call.body["explainOptions"] == nil else {
            throw .firestore(.unimplemented, "Query explain is not supported by the Firestore emulator.")
        }
    }

    /// `POST /v1/{parent}:runAggregationQuery`: one `{result: {aggregateFields}, readTime}`.
    func runAggregationQuery(_ database: DatabaseName, _ parent: DocumentPath, _ call: RESTCall) throws(APIError)
        -> JSONValue
    {
        try call.checkBody(allowing: [
            "structuredAggregationQuery", "transaction", "newTransaction", "readTime", "explainOptions",
        ])
        guard let json = call.body["structuredAggregationQuery"] else {
            throw .firestore(.invalidArgument, "structured_aggregation_query is required.")
        }
        try Self.refuseExplain(call)
        let aggregation = try AggregationQuery(json: json, parent: parent)
        let (fields, stamp) = try store.read(database, consistency: try call.bodyConsistency()) {
            (view: inout DatabaseView) throws(APIError) -> [String: FirestoreValue] in
            try rules.authorizeQuery(
                aggregation.query, credential: call.context.credential, view: view, time: call.context.now)
            return Aggregation.evaluate(aggregation.aggregations, over: view.run(aggregation.query))
        }
        var response: [String: JSONValue] = [
            "result": ["aggregateFields": .object(fields.mapValues(\.json))],
            "readTime": .string(stamp.readTime.description),
        ]
        if let transaction = stamp.transaction {
            response["transaction"] = .string(Data(transaction).base64EncodedString())
        }
        return [.object(response)]
    }

    /// `POST /v1/{parent}:partitionQuery`: up to `partitionCount - 1` cursors (document references) that split
    /// the query's results into parts of similar size; the query must order by name only.
    func partitionQuery(_ database: DatabaseName, _ parent: DocumentPath, _ call: RESTCall) throws(APIError) -> JSONValue {
        try call.checkBody(allowing: ["structuredQuery", "partitionCount", "pageToken", "pageSize", "readTime"])
        guard let json = call.body["structuredQuery"] else {
            throw .firestore(.invalidArgument, "structured_query is required.")
        }
        let query = try StructuredQuery(json: json, parent: parent)
        guard query.orderBy.allSatisfy({ $0 == QueryOrder(field: .documentName) }), query.filter == nil else {
            throw .firestore(.invalidArgument, "Partition queries support only ordering by __name__ ascending and no filters.")
        }
        let countField = call.body["partitionCount"]
        guard let count = countField?.intValue ?? countField?.stringValue.flatMap({ Int64($0) }), count >= 1 else {
            throw .firestore(.invalidArgument, "partition_count must be positive.")
        }
        let (documents, _) = try store.read(database, consistency: try call.bodyConsistency()) {
            (view: inout DatabaseView) throws(APIError) -> [Document] in
            try rules.authorizeQuery(query, credential: call.context.credential, view: view, time: call.context.now)
            return view.run(query)
        }
        let parts = Int(min(count, Int64(max(documents.count, 1))))
        guard parts > 1 else { return [:] }
        let cursors: [JSONValue] = (1..<parts).map { part in
            let document = documents[part * documents.count / parts]
            return ["values": [FirestoreValue.reference(document.path.name(in: database)).json]]
        }
        return ["partitions": .array(cursors)]
    }

    /// `POST /v1/{parent}:listCollectionIds`: the non-empty collections under the root or a document, sorted,
    /// paged. Admin-only when the project has rules, as production's client SDKs cannot call it.
    func listCollectionIds(_ database: DatabaseName, _ parent: DocumentPath, _ call: RESTCall) throws(APIError)
        -> JSONValue
    {
        try call.checkBody(allowing: ["pageSize", "pageToken", "readTime"])
        if call.context.credential != .owner, rules.ruleset(for: database.project) != nil {
            throw APIError.permissionDenied
        }
        let pageSize = call.body["pageSize"]?.intValue.map { $0 > 0 ? Int($0) : Int.max } ?? Int.max
        let after = try ListPageToken(call.body["pageToken"]?.stringValue).afterID
        let (ids, _) = try store.read(database) { (view: inout DatabaseView) throws(APIError) -> [String] in
            view.state.collectionIDs(under: parent)
        }
        let remaining = after.map { token in ids.filter { SortedIDs.precedes(token, $0) } } ?? ids
        let page = Array(remaining.prefix(pageSize))
        var response: [String: JSONValue] = [:]
        if !page.isEmpty { response["collectionIds"] = .array(page.map { .string($0) }) }
        if remaining.count > page.count, let last = page.last {
            response["nextPageToken"] = .string(ListPageToken(afterID: last).encoded)
        }
        return .object(response)
    }
}
