import EmulatorCore
import FirestoreWire
import GRPCCore
import SwiftProtobuf

/// Cloud Firestore's gRPC API (`google.firestore.v1.Firestore`): each RPC reads its request message into
/// the service's typed request, runs the service and writes its result as the response message; a
/// `FirestoreError` becomes the RPC's status. `Listen` and `Write` run the stream loops.
///
/// Each RPC other than `Listen` and `Write` is a synchronous method from request message and caller to
/// response message(s). The emulator's port serves them, and `Listen` and `Write`, on each connection's
/// event loop (`+Immediate.swift`, `GRPCConnectionHandler`); the grpc-swift `ServiceProtocol` methods wrap
/// the same methods for a grpc-swift server, which the tests run beside the port as the reference
/// (`GRPCHarness`).
///
/// The RPCs are in `FirestoreGRPCService+Documents.swift`, `+Batch.swift`, `+Queries.swift`, `+Listen.swift`
/// and `+Write.swift`.
struct FirestoreGRPCService: Google_Firestore_V1_Firestore.ServiceProtocol {
    /// The service every RPC runs.
    let service: FirestoreService
    /// The `Listen` calls served on each event loop (`ListenCall`).
    let listenLoops: ListenLoops

    /// The adapter over `service`.
    init(service: FirestoreService) {
        self.service = service
        listenLoops = ListenLoops(feed: service.feed)
    }

    /// The caller of an RPC arriving now, from its `authorization` metadata.
    func context(_ metadata: Metadata) -> CallContext {
        service.context(authorization: metadata[stringValues: "authorization"].first { _ in true })
    }

    /// Runs a unary RPC through grpc-swift: `operation`'s response, or its error as the RPC's status.
    func unary<Request: Message, Response: Message>(
        _ request: ServerRequest<Request>, _ operation: (Request, CallContext) throws(FirestoreError) -> Response
    ) throws(RPCError) -> ServerResponse<Response> {
        do {
            return ServerResponse(message: try operation(request.message, context(request.metadata)))
        } catch {
            throw RPCError(error)
        }
    }

    /// Runs a server-streaming RPC whose responses are all known at once through grpc-swift: `operation`
    /// completes before the first message goes out, so a failure is the RPC's status alone, as over REST.
    func serverStreaming<Request: Message, Response: Message>(
        _ request: ServerRequest<Request>, _ operation: (Request, CallContext) throws(FirestoreError) -> [Response]
    ) throws(RPCError) -> StreamingServerResponse<Response> {
        let messages: [Response]
        do {
            messages = try operation(request.message, context(request.metadata))
        } catch {
            throw RPCError(error)
        }
        return StreamingServerResponse { writer in
            try await writer.write(contentsOf: messages)
            return [:]
        }
    }
}
