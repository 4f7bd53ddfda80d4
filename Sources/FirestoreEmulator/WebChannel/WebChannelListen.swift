import EmulatorCore
import GRPCCore
import NIOCore
import NIOPosix
import Synchronization

/// A WebChannel `Listen` session served as a `ListenCall` on one event loop (the handshake's), as gRPC's
/// `Listen` calls are: no task, and commits reach it in the loop's pass over its listen calls. A forward
/// POST read on that loop hands its requests to the call at once and queues what they answer with the
/// POST's own maps; one read on another loop (or in a task) sends them over to the loop, after any sent
/// before, so the call sees the requests in map order.
///
/// The call and its output are used on `loop` only.
final class WebChannelListen: @unchecked Sendable {
    private let loop: any EventLoop
    private let call: ListenCall
    private let output: Output
    /// Requests sent over to the loop and not yet handed to the call.
    private let inFlight = Atomic<Int>(0)

    /// A session listening for `credential` in `service`, on `loop`: by default the calling thread's event
    /// loop (the handshake's connection's), else one of the group's.
    init(service: FirestoreGRPCService, credential: Credential, on loop: (any EventLoop)? = nil) {
        self.loop = loop ?? MultiThreadedEventLoopGroup.currentEventLoop ?? MultiThreadedEventLoopGroup.singleton.next()
        output = Output(eventLoop: self.loop)
        call = ListenCall(service: service.service, credential: credential, output: output, loops: service.listenLoops)
    }

    /// Writes to `stream` from now on (set once, before the first request).
    func attach(to stream: WebChannelStream) {
        output.stream = stream
    }

    /// Hands `request` to the call; returns the payloads that answer it now (to queue with the forward
    /// channel's maps, under the stream's lock), or none if it went over to the loop.
    func receive(_ request: ListenRequest) -> [String] {
        if loop.inEventLoop, inFlight.load(ordering: .sequentiallyConsistent) == 0 {
            output.collected = []
            call.receive(request)
            defer { output.collected = nil }
            return output.collected ?? []
        }
        inFlight.add(1, ordering: .sequentiallyConsistent)
        loop.execute { [self] in
            inFlight.subtract(1, ordering: .sequentiallyConsistent)
            call.receive(request)
        }
        return []
    }

    /// The session ended: the call stops.
    func close() {
        loop.execute { [self] in call.closed() }
    }

    /// A WebChannel session as a listen call's output: each event is an array of its own, the
    /// `ListenResponse` as proto3 JSON.
    private final class Output: ListenCallOutput {
        let eventLoop: any EventLoop
        weak var stream: WebChannelStream?
        /// While a request is handed to the call under the stream's lock: what it answers, queued by the
        /// caller.
        var collected: [String]?

        init(eventLoop: any EventLoop) {
            self.eventLoop = eventLoop
        }

        var isWritable: Bool { stream?.hasRoom ?? true }

        func send(_ events: [ListenEvent], encoder: inout ListenResponseEncoder) {
            let database = encoder.database
            do {
                emit(try events.map { try WebChannelEndpoint.payload(FirestoreGRPCService.message(for: $0, in: database)) })
            } catch {
                emit([WebChannelWire.errorPayload(ending: error)])
            }
        }

        func finish(_ error: RPCError?) {
            if let error { emit([WebChannelWire.errorPayload(error)]) }
        }

        private func emit(_ payloads: [String]) {
            if collected != nil {
                collected! += payloads
            } else {
                stream?.queue(payloads)
            }
        }
    }
}
