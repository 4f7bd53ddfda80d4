import GRPCCore

extension ClientError {
    /// The error of a gRPC status: its canonical code (UNKNOWN for a number that is not one), the code's
    /// number as `status`, and the message verbatim.
    init(grpcCode: Int, message: String) {
        self.init(Code.allCases.first { $0.grpcCode == grpcCode } ?? .unknown, status: grpcCode, message: message)
    }

    /// Any failure of a call: a `ClientError` as it is, an `RPCError` by its status, anything else (the
    /// client was closed, the transport failed) as `unavailable`.
    init(callFailure error: any Error) {
        switch error {
        case let error as ClientError: self = error
        case let error as RPCError: self.init(grpcCode: error.code.rawValue, message: error.message)
        default: self.init(.unavailable, message: "\(error)")
        }
    }
}
