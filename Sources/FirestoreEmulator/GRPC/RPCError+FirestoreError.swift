import GRPCCore

extension RPCError {
    /// The gRPC status of a Firestore error: its status's code and its message unchanged. The one place
    /// Firestore errors become gRPC statuses.
    init(_ error: FirestoreError) {
        let code = Status.Code(rawValue: error.grpcCode).flatMap(RPCError.Code.init)
        self.init(code: code ?? .unknown, message: error.message)
    }
}
