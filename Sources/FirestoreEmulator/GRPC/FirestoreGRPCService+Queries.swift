import EmulatorCore
import FirestoreWire
import Foundation
import GRPCCore
import SwiftProtobuf

/// RunQuery, RunAggregationQuery, PartitionQuery and ListCollectionIds: the request's `parent` names the
/// documents root or a document.
extension FirestoreGRPCService {
    /// RunQuery: one response per result (or one with only the read time), after one carrying a
    /// transaction begun with `new_transaction`; the last says `done`, as the official emulator's does.
    func runQuery(_ message: Google_Firestore_V1_RunQueryRequest, _ caller: CallContext)
        throws(FirestoreError) -> [Google_Firestore_V1_RunQueryResponse]
    {
        let (result, database) = try query(message, caller)
        return Self.responses(result, in: database)
    }

    /// RunQuery's responses for `result`.
    static func responses(_ result: QueryResult, in database: DatabaseName) -> [Google_Firestore_V1_RunQueryResponse] {
        let readTime = result.readTime.proto
        var responses = result.documents.map { document in
            Google_Firestore_V1_RunQueryResponse.with {
                $0.document = document.proto(in: database)
                $0.readTime = readTime
            }
        }
        if responses.isEmpty { responses = [.with { $0.readTime = readTime }] }
        if result.skipped > 0 { responses[0].skippedResults = Int32(clamping: result.skipped) }
        responses[responses.count - 1].done = true
        if let transaction = result.transaction {
            // A response carrying the new transaction carries nothing else (RunQueryResponse).
            responses.insert(.with { $0.transaction = Data(transaction) }, at: 0)
        }
        return responses
    }

    /// RunQuery's responses as `runQuery` gives them, serialized byte by byte: `document` (1), `transaction`
    /// (2), `read_time` (3), `skipped_results` (4), `done` (6), each when set.
    func runQueryBytes(_ message: Google_Firestore_V1_RunQueryRequest, _ caller: CallContext)
        throws(FirestoreError) -> [[UInt8]]
    {
        let (result, database) = try query(message, caller)
        return Self.responseBytes(result, in: database)
    }

    /// RunQuery's responses for `result`, serialized: `responses(_:in:)` written byte by byte.
    static func responseBytes(_ result: QueryResult, in database: DatabaseName) -> [[UInt8]] {
        var responses: [[UInt8]] = []
        responses.reserveCapacity(result.documents.count + 1)
        if let transaction = result.transaction {
            var writer = ProtoBytesWriter()
            writer.writeTag(2, .lengthDelimited)
            transaction.withUnsafeBufferPointer { writer.writeLengthDelimited($0) }
            responses.append(writer.bytes)
        }
        let count = max(result.documents.count, 1)
        for index in 0..<count {
            var writer = ProtoBytesWriter()
            if index < result.documents.count {
                let document = result.documents[index].protoBytes(in: database)
                writer.bytes.reserveCapacity(document.count + 32)
                writer.writeTag(1, .lengthDelimited)
                document.withUnsafeBufferPointer { writer.writeLengthDelimited($0) }
            }
            writer.writeTimestamp(result.readTime, tag: 3)
            if index == 0, result.skipped > 0 { writer.write(4, varint: UInt64(bitPattern: Int64(Int32(clamping: result.skipped)))) }
            if index == count - 1 { writer.write(6, varint: 1) }
            responses.append(writer.bytes)
        }
        return responses
    }

    /// The result of the query RunQuery asks for, with its database.
    private func query(_ message: Google_Firestore_V1_RunQueryRequest, _ caller: CallContext)
        throws(FirestoreError) -> (QueryResult, DatabaseName)
    {
        let (database, parent) = try DocumentPath.parse(parentName: message.parent)
        guard case .structuredQuery(let queryProto) = message.queryType else {
            throw FirestoreError(.invalidArgument, "structured_query is required.")
        }
        if message.hasExplainOptions { throw FirestoreError.explainUnsupported }
        let query = try StructuredQuery(proto: queryProto, parent: parent)
        let consistency = FirestoreStore.Consistency(message.consistencySelector)
        let result = try service.runQuery(
            RunQueryRequest(database: database, query: query, consistency: consistency), caller)
        return (result, database)
    }

    /// `runQuery` through grpc-swift.
    func runQuery(request: ServerRequest<Google_Firestore_V1_RunQueryRequest>, context: ServerContext)
        async throws -> StreamingServerResponse<Google_Firestore_V1_RunQueryResponse>
    {
        try serverStreaming(request, runQuery(_:_:))
    }

    /// RunAggregationQuery: one response with the aggregates.
    func runAggregationQuery(_ message: Google_Firestore_V1_RunAggregationQueryRequest, _ caller: CallContext)
        throws(FirestoreError) -> [Google_Firestore_V1_RunAggregationQueryResponse]
    {
        let (database, parent) = try DocumentPath.parse(parentName: message.parent)
        guard case .structuredAggregationQuery(let aggregationProto) = message.queryType else {
            throw FirestoreError(.invalidArgument, "structured_aggregation_query is required.")
        }
        if message.hasExplainOptions { throw FirestoreError.explainUnsupported }
        let aggregation = try AggregationQuery(proto: aggregationProto, parent: parent)
        let consistency = FirestoreStore.Consistency(message.consistencySelector)
        let result = try service.runAggregationQuery(
            RunAggregationQueryRequest(database: database, aggregation: aggregation, consistency: consistency),
            caller)
        var response = Google_Firestore_V1_RunAggregationQueryResponse()
        response.result.aggregateFields = result.fields.mapValues(\.proto)
        response.readTime = result.readTime.proto
        if let transaction = result.transaction { response.transaction = Data(transaction) }
        return [response]
    }

    /// `runAggregationQuery` through grpc-swift.
    func runAggregationQuery(request: ServerRequest<Google_Firestore_V1_RunAggregationQueryRequest>, context: ServerContext)
        async throws -> StreamingServerResponse<Google_Firestore_V1_RunAggregationQueryResponse>
    {
        try serverStreaming(request, runAggregationQuery(_:_:))
    }

    /// PartitionQuery.
    func partitionQuery(_ message: Google_Firestore_V1_PartitionQueryRequest, _ caller: CallContext)
        throws(FirestoreError) -> Google_Firestore_V1_PartitionQueryResponse
    {
        let (database, parent) = try DocumentPath.parse(parentName: message.parent)
        guard case .structuredQuery(let queryProto) = message.queryType else {
            throw FirestoreError(.invalidArgument, "structured_query is required.")
        }
        let query = try StructuredQuery(proto: queryProto, parent: parent)
        var consistency = FirestoreStore.Consistency.latest
        if case .readTime(let time) = message.consistencySelector {
            consistency = .readTime(Timestamp(seconds: time.seconds, nanos: time.nanos))
        }
        let cursors = try service.partitionQuery(
            PartitionQueryRequest(
                database: database, query: query, partitionCount: message.partitionCount, consistency: consistency),
            caller)
        return .with {
            $0.partitions = cursors.map { path in
                .with { $0.values = [FirestoreValue.reference(path.name(in: database)).proto] }
            }
        }
    }

    /// `partitionQuery` through grpc-swift.
    func partitionQuery(request: ServerRequest<Google_Firestore_V1_PartitionQueryRequest>, context: ServerContext)
        async throws -> ServerResponse<Google_Firestore_V1_PartitionQueryResponse>
    {
        try unary(request, partitionQuery(_:_:))
    }

    /// ListCollectionIds.
    func listCollectionIds(_ message: Google_Firestore_V1_ListCollectionIdsRequest, _ caller: CallContext)
        throws(FirestoreError) -> Google_Firestore_V1_ListCollectionIdsResponse
    {
        let (database, parent) = try DocumentPath.parse(parentName: message.parent)
        let after = try ListPageToken(message.pageToken).afterID
        let page = try service.listCollectionIDs(
            ListCollectionIDsRequest(
                database: database, parent: parent, pageSize: message.pageSize > 0 ? Int(message.pageSize) : Int.max,
                after: after),
            caller)
        return .with {
            $0.collectionIds = page.ids
            if let next = page.next { $0.nextPageToken = next.encoded }
        }
    }

    /// `listCollectionIds` through grpc-swift.
    func listCollectionIds(request: ServerRequest<Google_Firestore_V1_ListCollectionIdsRequest>, context: ServerContext)
        async throws -> ServerResponse<Google_Firestore_V1_ListCollectionIdsResponse>
    {
        try unary(request, listCollectionIds(_:_:))
    }
}
