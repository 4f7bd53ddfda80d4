import EmulatorCore
import FirestoreWire
import GRPCCore
import SwiftProtobuf

/// The bridge from gRPC to the REST operations: a request message becomes its proto3 JSON, the body of the
/// REST call it transcodes to; the operation's JSON result becomes the response message; an `APIError`
/// becomes the gRPC status of its Google status. JSON costs a little per request, and buys one decoder,
/// one validator and one set of error messages for both transports.
extension FirestoreService {
    /// Runs a unary RPC: `operation` gets the request as the REST call it transcodes to (its `bound` fields,
    /// which REST takes from the URL, left out of the body), and answers the response as JSON.
    func unary<Request: Message, Response: Message>(
        _ request: ServerRequest<Request>, bound: [String] = [],
        _ operation: (RESTCall) throws(APIError) -> JSONValue
    ) throws(RPCError) -> ServerResponse<Response> {
        ServerResponse(message: try Self.message(try run(request, bound: bound, operation)))
    }

    /// Runs a server-streaming RPC: one response message per element of the JSON array `operation`
    /// answers (REST's form of a stream), in order. The operation completes before the first message goes
    /// out, so a failure is the RPC's status alone, as over REST.
    func serverStreaming<Request: Message, Response: Message>(
        _ request: ServerRequest<Request>, bound: [String] = [],
        _ operation: (RESTCall) throws(APIError) -> JSONValue
    ) throws(RPCError) -> StreamingServerResponse<Response> {
        let result = try run(request, bound: bound, operation)
        let messages = try (result.arrayValue ?? [result]).map { (json) throws(RPCError) -> Response in
            try Self.message(json)
        }
        return StreamingServerResponse { writer in
            try await writer.write(contentsOf: messages)
            return [:]
        }
    }

    /// The caller of an RPC arriving now, from its `authorization` metadata, read as REST reads the
    /// `Authorization` header.
    func callContext(_ metadata: Metadata) -> CallContext {
        api.callContext(authorization: metadata[stringValues: "authorization"].first { _ in true })
    }

    /// `operation`'s result for the REST call `request` transcodes to; its error as a gRPC status.
    private func run<Request: Message>(
        _ request: ServerRequest<Request>, bound: [String], _ operation: (RESTCall) throws(APIError) -> JSONValue
    ) throws(RPCError) -> JSONValue {
        let call = RESTCall(context: callContext(request.metadata), body: try Self.body(of: request.message, without: bound))
        do {
            return try operation(call)
        } catch {
            throw RPCError(error)
        }
    }

    /// The proto3 JSON of `message`, without `requestOptions` (request tags, which no operation reads) and
    /// the `bound` fields.
    static func body(of message: some Message, without bound: [String] = []) throws(RPCError) -> JSONValue {
        let json: JSONValue
        do {
            json = try JSONValue.parse(try message.jsonUTF8Data())
        } catch {
            throw RPCError(code: .internalError, message: "The request could not be read as proto3 JSON: \(error)")
        }
        guard case .object(var members) = json else { return json }
        for name in bound + ["requestOptions"] { members[name] = nil }
        return .object(members)
    }

    /// `json`, an operation's result, as the message `Response`.
    static func message<Response: Message>(_ json: JSONValue) throws(RPCError) -> Response {
        do {
            return try Response(jsonString: json.serialized(), options: responseDecoding)
        } catch {
            throw RPCError(
                code: .internalError, message: "The result could not be read as \(Response.protoMessageName): \(error)")
        }
    }

    private static let responseDecoding: JSONDecodingOptions = {
        var options = JSONDecodingOptions()
        options.ignoreUnknownFields = true
        return options
    }()
}
