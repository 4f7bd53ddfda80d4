import EmulatorCore
import FirestoreWire
import GRPCCore

/// RunQuery, RunAggregationQuery, PartitionQuery and ListCollectionIds: REST's methods on a query parent
/// (`POST /v1/{parent}:<method>`), the request's `parent` naming the documents root or a document.
extension FirestoreService {
    /// RunQuery: one response per result (or one with only the read time), after one carrying a
    /// transaction begun with `new_transaction`.
    func runQuery(request: ServerRequest<Google_Firestore_V1_RunQueryRequest>, context: ServerContext)
        async throws -> StreamingServerResponse<Google_Firestore_V1_RunQueryResponse>
    {
        try serverStreaming(request, bound: ["parent"]) { call throws(APIError) in
            let (database, parent) = try DocumentPath.parse(parentName: request.message.parent)
            return try api.runQuery(database, parent, call)
        }
    }

    /// RunAggregationQuery: one response with the aggregates.
    func runAggregationQuery(
        request: ServerRequest<Google_Firestore_V1_RunAggregationQueryRequest>, context: ServerContext
    ) async throws -> StreamingServerResponse<Google_Firestore_V1_RunAggregationQueryResponse> {
        try serverStreaming(request, bound: ["parent"]) { call throws(APIError) in
            let (database, parent) = try DocumentPath.parse(parentName: request.message.parent)
            return try api.runAggregationQuery(database, parent, call)
        }
    }

    /// PartitionQuery.
    func partitionQuery(request: ServerRequest<Google_Firestore_V1_PartitionQueryRequest>, context: ServerContext)
        async throws -> ServerResponse<Google_Firestore_V1_PartitionQueryResponse>
    {
        try unary(request, bound: ["parent"]) { call throws(APIError) in
            let (database, parent) = try DocumentPath.parse(parentName: request.message.parent)
            return try api.partitionQuery(database, parent, call)
        }
    }

    /// ListCollectionIds.
    func listCollectionIds(
        request: ServerRequest<Google_Firestore_V1_ListCollectionIdsRequest>, context: ServerContext
    ) async throws -> ServerResponse<Google_Firestore_V1_ListCollectionIdsResponse> {
        try unary(request, bound: ["parent"]) { call throws(APIError) in
            let (database, parent) = try DocumentPath.parse(parentName: request.message.parent)
            return try api.listCollectionIds(database, parent, call)
        }
    }
}
