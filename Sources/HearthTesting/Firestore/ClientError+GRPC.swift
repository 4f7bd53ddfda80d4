import GRPCCore

extension ClientError {
    /// The error of a gRPC status: its canonical code (UNKNOWN for codes without a case here), the code's
    /// number as `status`, and the message verbatim.
    init(grpcCode: Int, message: String) {
        let code: Code =
            switch grpcCode {
            case 3: .invalidArgument
            case 5: .notFound
            case 6: .alreadyExists
            case 7: .permissionDenied
            case 9: .failedPrecondition
            case 10: .aborted
            case 14: .unavailable
            case 16: .unauthenticated
            default: .unknown
            }
        self.init(code, status: grpcCode, message: message)
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
