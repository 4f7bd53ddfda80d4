import GRPCCore
import NIOCore
import SwiftProtobuf

extension RPCError {
    /// The gRPC status of a Firestore error: its status's code and its message unchanged. The one place
    /// Firestore errors become gRPC statuses.
    init(_ error: FirestoreError) {
        let code = Status.Code(rawValue: error.grpcCode).flatMap(RPCError.Code.init)
        self.init(code: code ?? .unknown, message: error.message)
    }
}

extension Message {
    /// The request message serialized in `bytes`. Bytes that do not decode as one are refused with
    /// grpc-swift's status and words (INVALID_ARGUMENT), on every path that decodes a request itself.
    init(request bytes: ByteBuffer) throws(RPCError) {
        do {
            try self.init(serializedBytes: Array(bytes.readableBytesView))
        } catch {
            throw RPCError(code: .invalidArgument, message: "Can't deserialize to message of type \(Self.self).")
        }
    }
}
