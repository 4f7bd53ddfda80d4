import EmulatorCore
import FirestoreWire
import GRPCCore
import NIOCore

/// gRPC's `Listen` calls: request messages decoded from protobuf, events written as gRPC-framed
/// `ListenResponse`s (one rendering per distinct batch in a commit's pass, `ListenResponseEncoder`).
extension ListenCall: ImmediateGRPCStream {
    /// A gRPC call listening for `credential`, writing to `output`, fed commits through `loops`.
    convenience init(
        service: FirestoreService, credential: Credential, output: any ImmediateGRPCStreamOutput, loops: ListenLoops
    ) {
        self.init(service: service, credential: credential, output: GRPCListenOutput(output), loops: loops)
    }

    func receive(_ message: ByteBuffer) {
        let proto: Google_Firestore_V1_ListenRequest
        do {
            proto = try Google_Firestore_V1_ListenRequest(request: message)
        } catch {
            return fail(error)
        }
        receive(FirestoreGRPCService.request(proto))
    }
}

/// A gRPC stream as a listen call's output.
private final class GRPCListenOutput: ListenCallOutput {
    private let output: any ImmediateGRPCStreamOutput

    init(_ output: any ImmediateGRPCStreamOutput) {
        self.output = output
    }

    var eventLoop: any EventLoop { output.eventLoop }
    var isWritable: Bool { output.isWritable }

    func send(_ events: [ListenEvent], encoder: inout ListenResponseEncoder) {
        output.send(framed: encoder.framed(events, allocator: output.allocator))
    }

    func finish(_ error: RPCError?) {
        output.finish(error)
    }
}
