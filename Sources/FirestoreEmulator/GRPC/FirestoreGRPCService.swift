import EmulatorCore
import FirestoreWire
import GRPCCore
import SwiftProtobuf

/// Cloud Firestore's gRPC API (`google.firestore.v1.Firestore`): each RPC reads its request message into
/// the service's typed request, runs the service and writes its result as the response message; a
/// `FirestoreError` becomes the RPC's status. `Listen` and `Write` run the stream loops.
///
/// The RPCs are in `FirestoreGRPCService+Documents.swift`, `+Batch.swift`, `+Queries.swift`, `+Listen.swift`
/// and `+Write.swift`.
struct FirestoreGRPCService: Google_Firestore_V1_Firestore.ServiceProtocol {
    /// The service every RPC runs.
    let service: FirestoreService

    /// The adapter over `service`.
    init(service: FirestoreService) {
        self.service = service
    }

    /// The caller of an RPC arriving now, from its `authorization` metadata.
    func context(_ metadata: Metadata) -> CallContext {
        service.context(authorization: metadata[stringValues: "authorization"].first { _ in true })
    }

    /// Runs a unary RPC: `operation`'s response, or its error as the RPC's status.
    func unary<Response: Message>(_ operation: () throws(FirestoreError) -> Response) throws(RPCError)
        -> ServerResponse<Response>
    {
        do {
            return ServerResponse(message: try operation())
        } catch {
            throw RPCError(error)
        }
    }

    /// Runs a server-streaming RPC whose responses are all known at once: `operation` completes before the
    /// first message goes out, so a failure is the RPC's status alone, as over REST.
    func serverStreaming<Response: Message>(_ operation: () throws(FirestoreError) -> [Response]) throws(RPCError)
        -> StreamingServerResponse<Response>
    {
        let messages: [Response]
        do {
            messages = try operation()
        } catch {
            throw RPCError(error)
        }
        return StreamingServerResponse { writer in
            try await writer.write(contentsOf: messages)
            return [:]
        }
    }
}
