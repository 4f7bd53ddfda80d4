import EmulatorCore
import FirestoreWire
import GRPCCore
import NIOCore
import SwiftProtobuf

/// A `Write` call served on its connection's event loop: each request is committed as it arrives and
/// answered at once, through the same `WriteStream` protocol and service method as the async path
/// (WebChannel), so the answers are the same.
final class WriteCall: ImmediateGRPCStream {
    private let service: FirestoreGRPCService
    private let authorization: String?
    private let output: any ImmediateGRPCStreamOutput
    private var stream = WriteStream(id: RandomID.make(length: 20))
    private var isOver = false

    /// A call committing for the caller of `authorization` (the call's `authorization` metadata).
    init(service: FirestoreGRPCService, authorization: String?, output: any ImmediateGRPCStreamOutput) {
        self.service = service
        self.authorization = authorization
        self.output = output
    }

    func receive(_ message: ByteBuffer) {
        guard !isOver else { return }
        let request: WriteStreamRequest
        if let read = WriteWireDecoding.writeRequest(message) {
            request = read
        } else {
            do {
                request = FirestoreGRPCService.request(try Google_Firestore_V1_WriteRequest(request: message))
            } catch {
                return end(error)
            }
        }
        do {
            let answer = try service.service.respond(to: request, in: &stream, authorization: authorization)
            let response: [UInt8] = try FirestoreGRPCService.response(answer).serializedBytes()
            var framed = output.allocator.buffer(capacity: response.count + 5)
            framed.writeGRPCMessage(response)
            output.send(framed: framed)
        } catch let error as FirestoreError {
            end(RPCError(error))
        } catch {
            end(RPCError(code: .internalError, message: "The response could not be serialized."))
        }
    }

    func requestsEnded() {
        end(nil)
    }

    func closed() {
        isOver = true
    }

    private func end(_ error: RPCError?) {
        guard !isOver else { return }
        isOver = true
        output.finish(error)
    }
}
