import EmulatorCore
import EmulatorHTTP
import Foundation

/// Methods on a query parent (the documents root or a document): RunQuery, RunAggregationQuery,
/// PartitionQuery, ListCollectionIds.
extension FirestoreREST {
    /// `POST /v1/{parent}:runQuery`: a JSON array of `{document, readTime}`, or one `{readTime}` when nothing
    /// matches; the first element carries a transaction begun with `newTransaction`, the last `done: true`
    /// (as the official emulator marks it).
    func runQuery(_ database: DatabaseName, _ parent: DocumentPath, _ call: RESTCall) throws(FirestoreError) -> RunQueryJSON {
        try call.checkBody(allowing: ["structuredQuery", "transaction", "newTransaction", "readTime", "explainOptions"])
        guard let json = call.body["structuredQuery"] else {
            throw FirestoreError(.invalidArgument, "structured_query is required.")
        }
        try Self.refuseExplain(call)
        let query = try StructuredQuery(json: json, parent: parent)
        let result = try service.runQuery(
            RunQueryRequest(database: database, query: query, consistency: try call.bodyConsistency()), call.context)
        return RunQueryJSON(result: result, database: database)
    }

    /// Query explanations (`explainOptions`) are production's query planner's; the emulator has none.
    private static func refuseExplain(_ call: RESTCall) throws(FirestoreError) {
        guard call.body["explainOptions"] == nil else { throw FirestoreError.explainUnsupported }
    }

    /// `POST /v1/{parent}:runAggregationQuery`: one `{result: {aggregateFields}, readTime, done: true}`.
    func runAggregationQuery(_ database: DatabaseName, _ parent: DocumentPath, _ call: RESTCall) throws(FirestoreError)
        -> JSONValue
    {
        try call.checkBody(allowing: [
            "structuredAggregationQuery", "transaction", "newTransaction", "readTime", "explainOptions",
        ])
        guard let json = call.body["structuredAggregationQuery"] else {
            throw FirestoreError(.invalidArgument, "structured_aggregation_query is required.")
        }
        try Self.refuseExplain(call)
        let aggregation = try AggregationQuery(json: json, parent: parent)
        let result = try service.runAggregationQuery(
            RunAggregationQueryRequest(database: database, aggregation: aggregation, consistency: try call.bodyConsistency()),
            call.context)
        var response: [String: JSONValue] = [
            "result": ["aggregateFields": .object(result.fields.mapValues(\.json))],
            "readTime": .string(result.readTime.description), "done": true,
        ]
        if let transaction = result.transaction {
            response["transaction"] = .string(Data(transaction).base64EncodedString())
        }
        return [.object(response)]
    }

    /// `POST /v1/{parent}:partitionQuery`: up to `partitionCount - 1` cursors (document references) that split
    /// the query's results into parts of similar size.
    func partitionQuery(_ database: DatabaseName, _ parent: DocumentPath, _ call: RESTCall) throws(FirestoreError) -> JSONValue {
        try call.checkBody(allowing: ["structuredQuery", "partitionCount", "pageToken", "pageSize", "readTime"])
        guard let json = call.body["structuredQuery"] else {
            throw FirestoreError(.invalidArgument, "structured_query is required.")
        }
        let query = try StructuredQuery(json: json, parent: parent)
        let countField = call.body["partitionCount"]
        let count = countField?.intValue ?? countField?.stringValue.flatMap({ Int64($0) }) ?? 0
        let cursors = try service.partitionQuery(
            PartitionQueryRequest(database: database, query: query, partitionCount: count, consistency: try call.bodyConsistency()),
            call.context)
        guard !cursors.isEmpty else { return [:] }
        return ["partitions": .array(cursors.map { ["values": [FirestoreValue.reference($0.name(in: database)).json]] })]
    }

    /// `POST /v1/{parent}:listCollectionIds`: the non-empty collections under the root or a document, sorted,
    /// paged.
    func listCollectionIds(_ database: DatabaseName, _ parent: DocumentPath, _ call: RESTCall) throws(FirestoreError)
        -> JSONValue
    {
        try call.checkBody(allowing: ["pageSize", "pageToken", "readTime"])
        let pageSize = call.body["pageSize"]?.intValue.map { $0 > 0 ? Int($0) : Int.max } ?? Int.max
        let after = try ListPageToken(call.body["pageToken"]?.stringValue).afterID
        let page = try service.listCollectionIDs(
            ListCollectionIDsRequest(database: database, parent: parent, pageSize: pageSize, after: after), call.context)
        var response: [String: JSONValue] = [:]
        if !page.ids.isEmpty { response["collectionIds"] = .array(page.ids.map { .string($0) }) }
        if let next = page.next { response["nextPageToken"] = .string(next.encoded) }
        return .object(response)
    }
}

/// RunQuery's answer, written as JSON text without a `JSONValue` tree: an array of `{document, readTime}`,
/// or one `{readTime}` when nothing matches; the first element carries `skippedResults` when the offset
/// skipped any, the last `done: true` (as the official emulator marks it), and a transaction begun with
/// `newTransaction` comes first, alone (`RunQueryResponse`).
struct RunQueryJSON: JSONWritable {
    let result: QueryResult
    let database: DatabaseName

    func write(to writer: inout JSONWriter) {
        let readTime = result.readTime.description
        writer.raw("[")
        if let transaction = result.transaction {
            writer.raw(#"{"transaction":"#)
            writer.string(Data(transaction).base64EncodedString())
            writer.raw("},")
        }
        let count = max(result.documents.count, 1)
        for index in 0..<count {
            if index > 0 { writer.raw(",") }
            // Keys in sorted order: document, done, readTime, skippedResults.
            writer.raw("{")
            if index < result.documents.count {
                writer.raw(#""document":"#)
                DocumentJSON(document: result.documents[index], database: database).write(to: &writer)
                writer.raw(",")
            }
            if index == count - 1 { writer.raw(#""done":true,"#) }
            writer.raw(#""readTime":"#)
            writer.string(readTime)
            if index == 0, result.skipped > 0 {
                writer.raw(#","skippedResults":"#)
                writer.int(Int64(result.skipped))
            }
            writer.raw("}")
        }
        writer.raw("]")
    }
}
