import FirestoreWire
import GRPCCore

extension FirestoreClient {
    /// Opens a `Listen` stream with `target` and delivers each snapshot `ListenState` makes, through
    /// `transform`. The stream fails with a `ClientError` when the server removes the target with a cause, the
    /// RPC fails or ends without a removal; when the consumer stops iterating, the RPC is cancelled.
    func listen<Element: Sendable>(
        _ target: Google_Firestore_V1_Target, order: @escaping @Sendable (DocumentSnapshot, DocumentSnapshot) -> Bool,
        transform: @escaping @Sendable (QuerySnapshot) -> Element
    ) -> AsyncThrowingStream<Element, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Element.self)
        var request = Google_Firestore_V1_ListenRequest()
        request.database = database
        request.addTarget = target
        request.addTarget.targetID = ListenState.targetID
        let state = ListenState(root: root, order: order)
        let opening = request
        let task = Task { [stub, metadata] in
            // Released when the responses end: the request stream stays open until then, since closing it
            // would end the listen.
            let (held, release) = AsyncStream<Never>.makeStream()
            do {
                try await stub.listen(metadata: metadata, options: Self.options(timeout: nil)) { writer in
                    try await writer.write(opening)
                    for await _ in held {}
                } onResponse: { response in
                    defer { release.finish() }
                    try await Self.follow(response.messages, with: state) { continuation.yield(transform($0)) }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: ClientError(callFailure: error))
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Feeds `responses` to `state` and hands each snapshot it makes to `deliver`, until the state finishes.
    /// Throws the state's failure, or `unavailable` if the responses end first: the SDKs take a Listen that
    /// ends without removing its target for a broken stream, not for the end of the listener.
    static func follow(
        _ responses: some AsyncSequence<Google_Firestore_V1_ListenResponse, any Error>, with state: ListenState,
        deliver: (QuerySnapshot) -> Void
    ) async throws {
        var state = state
        for try await response in responses {
            switch state.receive(response) {
            case .wait: continue
            case .emit(let snapshot): deliver(snapshot)
            case .finish: return
            case .fail(let error): throw error
            }
        }
        throw ClientError(.unavailable, message: "The Listen stream ended before the server removed its target.")
    }
}
