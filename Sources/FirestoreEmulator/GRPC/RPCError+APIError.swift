import EmulatorCore
import GRPCCore

extension RPCError {
    /// The gRPC status of an API error: the code of its Google status (`PERMISSION_DENIED`, `NOT_FOUND`,
    /// `ABORTED`...; UNKNOWN if it has none) and its message unchanged. The one place API errors become
    /// gRPC statuses.
    init(_ error: APIError) {
        let code = Status.Code(rawValue: error.grpcCode).flatMap(RPCError.Code.init)
        self.init(code: code ?? .unknown, message: error.message)
    }
}
