import FirestoreWire
import GRPCCore

extension FirestoreClient {
    /// Opens a `Listen` stream with `target` and delivers each snapshot `ListenState` makes, through
    /// `transform`. The stream fails with a `ClientError` when the server removes the target with a cause or
    /// the RPC fails; when the consumer stops iterating, the RPC is cancelled.
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
                    var state = state
                    for try await message in response.messages {
                        switch state.receive(message) {
                        case .wait: continue
                        case .emit(let snapshot): continuation.yield(transform(snapshot))
                        case .finish: return
                        case .fail(let error): throw error
                        }
                    }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: ClientError(callFailure: error))
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
