import FirestoreWire
import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import SwiftProtobuf
import Synchronization

// Listeners that cost the client as little as gRPC allows: each Listen stream is an HTTP/2 stream handled
// on its connection's event loop, with no task, async sequence or per-call machinery. A grpc-swift client
// spends ~60 µs of CPU per delivered message, so with 1,000 streams on a 2-core machine it measures itself
// (60 ms a commit), not the server; these listeners spend ~8 µs a message (NIOHTTP2's client side and
// decoding), about what the server spends on a delivery, and print their CPU time per commit beside the
// latency so the two can be told apart.

/// Commit → listener latency with `streams` Listen streams (one target each) over `connections` HTTP/2
/// connections that the client drives on NIO event loops directly.
func leanLatency(port: Int, streams: Int, connections: Int, commits: Int, warmUp: Int = 10) async throws {
    let collection = "lean\(streams)"
    let deliveries = Deliveries(commits: warmUp + commits)
    let ready = Countdown(streams)
    let samples = Samples()
    var channels: [any Channel] = []
    for connection in 0..<connections {
        let share = streams / connections + (connection < streams % connections ? 1 : 0)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port).get()
        let measured = warmUp..<(warmUp + commits)
        try await channel.eventLoop.flatSubmit {
            channel.configureHTTP2Pipeline(
                mode: .client, initialLocalSettings: [HTTP2Setting(parameter: .initialWindowSize, value: 1 << 20)],
                inboundStreamInitializer: nil
            ).flatMap { multiplexer in
                let opened = (0..<share).map { _ in
                    let promise = channel.eventLoop.makePromise(of: (any Channel).self)
                    multiplexer.createStreamChannel(promise: promise) { stream in
                        stream.eventLoop.makeCompletedFuture {
                            try stream.pipeline.syncOperations.addHandler(
                                LeanListener(
                                    port: port, request: target(collection), ready: ready, deliveries: deliveries,
                                    samples: samples, measured: measured))
                        }
                    }
                    return promise.futureResult
                }
                return EventLoopFuture.andAllSucceed(opened, on: channel.eventLoop)
            }
        }.get()
        channels.append(channel)
    }
    await ready.wait()
    var acknowledged: [Double] = []
    var cpu = (start: 0.0, end: 0.0)
    try await withClient(port: port) { writer in
        for index in 0..<(warmUp + commits) {
            if index == warmUp { cpu.start = processCPU() }
            if index >= warmUp { deliveries.markSent(index) }
            let sent = ContinuousClock.now
            _ = try await writer.commit(commit(collection, "m\(index)", Int64(index)), metadata: owner)
            if index >= warmUp { acknowledged.append(milliseconds(ContinuousClock.now - sent)) }
            await deliveries.wait(for: streams)
        }
        cpu.end = processCPU()
    }
    for channel in channels { try? await channel.close() }
    report(
        listeners: streams, shape: "\(streams) streams, lean client", commits: commits, samples: samples.all,
        acknowledged: acknowledged, cpu: cpu.end - cpu.start)
}

/// One Listen stream: sends its one request when the stream opens, then reads the responses on the event
/// loop, counting the first snapshot as ready and timing each later document change.
private final class LeanListener: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let port: Int
    private let request: Google_Firestore_V1_ListenRequest
    private let ready: Countdown
    private let deliveries: Deliveries
    private let samples: Samples
    private let measured: Range<Int>
    private var pending: ByteBuffer?
    private var isReady = false
    private var mine: [Double] = []

    init(
        port: Int, request: Google_Firestore_V1_ListenRequest, ready: Countdown, deliveries: Deliveries, samples: Samples,
        measured: Range<Int>
    ) {
        self.port = port
        self.request = request
        self.ready = ready
        self.deliveries = deliveries
        self.samples = samples
        self.measured = measured
    }

    func channelActive(context: ChannelHandlerContext) {
        let headers: HPACKHeaders = [
            ":method": "POST", ":scheme": "http", ":path": "/google.firestore.v1.Firestore/Listen",
            ":authority": "127.0.0.1:\(port)", "content-type": "application/grpc", "te": "trailers",
            "authorization": "Bearer owner",
        ]
        context.write(wrapOutboundOut(.headers(.init(headers: headers))), promise: nil)
        let bytes: [UInt8] = try! request.serializedBytes()
        var framed = context.channel.allocator.buffer(capacity: bytes.count + 5)
        framed.writeInteger(UInt8(0))
        framed.writeInteger(UInt32(bytes.count))
        framed.writeBytes(bytes)
        context.writeAndFlush(wrapOutboundOut(.data(.init(data: .byteBuffer(framed)))), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .data(let frame) = unwrapInboundIn(data), case .byteBuffer(var bytes) = frame.data else { return }
        let now = ContinuousClock.now
        if pending == nil { pending = bytes } else { pending!.writeBuffer(&bytes) }
        while let buffer = pending, buffer.readableBytes >= 5,
            let length = buffer.getInteger(at: buffer.readerIndex + 1, as: UInt32.self),
            buffer.readableBytes >= 5 + Int(length)
        {
            pending!.moveReaderIndex(forwardBy: 5)
            let message = pending!.readSlice(length: Int(length))!
            guard let response = try? Google_Firestore_V1_ListenResponse(serializedBytes: Array(message.readableBytesView))
            else { continue }
            if !isReady {
                if isSnapshot(response) {
                    isReady = true
                    ready.countDown()
                }
                continue
            }
            guard case .documentChange(let change) = response.responseType else { continue }
            let name = change.document.name
            if let index = name.lastIndex(of: "m").flatMap({ Int(name[name.index(after: $0)...]) }) {
                if measured.contains(index), let sample = deliveries.latency(of: index, at: now) { mine.append(sample) }
                if index == measured.upperBound - 1 { samples.add(mine) }
            }
            deliveries.delivered(1)
        }
        if pending?.readableBytes == 0 { pending = nil }
    }
}

/// Every stream's samples, handed in once a stream has its last.
private final class Samples: Sendable {
    private let samples = Mutex<[Double]>([])
    func add(_ more: [Double]) { samples.withLock { $0 += more } }
    var all: [Double] { samples.withLock { $0 } }
}

/// Resumes a waiter once `countDown()` has been called the given number of times.
private final class Countdown: Sendable {
    private let state: Mutex<(remaining: Int, waiter: CheckedContinuation<Void, Never>?)>

    init(_ count: Int) { state = Mutex((count, nil)) }

    func countDown() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.remaining -= 1
            guard state.remaining == 0 else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                if state.remaining <= 0 { return true }
                state.waiter = continuation
                return false
            }
            if done { continuation.resume() }
        }
    }
}
