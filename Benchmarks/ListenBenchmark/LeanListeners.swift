import FirestoreWire
import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import SwiftProtobuf
import Synchronization

// Listeners that cost the client as little as gRPC allows: each connection's Listen streams are served by
// one handler on the connection's event loop, behind NIOHTTP2's connection handler with no stream
// multiplexer, so there is no channel, task or async sequence per stream. A grpc-swift client spends ~60 µs
// of CPU per delivered message, so with 1,000 streams on a 2-core machine it measures itself (60 ms a
// commit), not the server; a listener on a stream channel of NIOHTTP2's multiplexer still spent ~8 µs, about
// what the server spends on a delivery. The listeners print their CPU time per commit beside the latency so
// the two can be told apart.

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
        try await channel.eventLoop.submit {
            let handlers = channel.pipeline.syncOperations
            try handlers.addHandler(
                NIOHTTP2Handler(
                    mode: .client, initialSettings: [HTTP2Setting(parameter: .initialWindowSize, value: 1 << 20)]))
            try handlers.addHandler(
                LeanConnection(
                    port: port, streams: share, request: target(collection), ready: ready, deliveries: deliveries,
                    samples: samples, measured: measured))
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

/// One connection's Listen streams: opens them (one request each) when added, then reads every stream's
/// responses in the order they arrive, counting each stream's first snapshot as ready and timing each later
/// document change. Gives the bytes it reads back to the server (WINDOW_UPDATE) as it goes.
private final class LeanConnection: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// What one stream has read: the start of a message not yet whole, whether its first snapshot came,
    /// and its latency samples.
    struct Listener {
        var pending: ByteBuffer?
        var isReady = false
        var samples: [Double] = []
        var unacknowledged = 0
    }

    /// The connection's inbound window, which HTTP/2 starts at 64 KiB; streams get theirs from SETTINGS.
    static let window = 1 << 20

    private let port: Int
    private let count: Int
    private let request: Google_Firestore_V1_ListenRequest
    private let ready: Countdown
    private let deliveries: Deliveries
    private let samples: Samples
    private let measured: Range<Int>
    private var listeners: [HTTP2StreamID: Listener] = [:]
    private var unacknowledged = 0

    init(
        port: Int, streams: Int, request: Google_Firestore_V1_ListenRequest, ready: Countdown, deliveries: Deliveries,
        samples: Samples, measured: Range<Int>
    ) {
        self.port = port
        self.count = streams
        self.request = request
        self.ready = ready
        self.deliveries = deliveries
        self.samples = samples
        self.measured = measured
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let headers: HPACKHeaders = [
            ":method": "POST", ":scheme": "http", ":path": "/google.firestore.v1.Firestore/Listen",
            ":authority": "127.0.0.1:\(port)", "content-type": "application/grpc", "te": "trailers",
            "authorization": "Bearer owner",
        ]
        let bytes: [UInt8] = try! request.serializedBytes()
        context.write(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: Self.window - 65_535))), promise: nil)
        for index in 0..<count {
            let id = HTTP2StreamID(1 + 2 * index)
            listeners[id] = Listener()
            var framed = context.channel.allocator.buffer(capacity: bytes.count + 5)
            framed.writeInteger(UInt8(0))
            framed.writeInteger(UInt32(bytes.count))
            framed.writeBytes(bytes)
            context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .headers(.init(headers: headers)))), promise: nil)
            context.write(wrapOutboundOut(HTTP2Frame(streamID: id, payload: .data(.init(data: .byteBuffer(framed))))), promise: nil)
        }
        context.flush()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        guard case .data(let payload) = frame.payload, case .byteBuffer(var bytes) = payload.data,
            var listener = listeners[frame.streamID]
        else { return }
        let now = ContinuousClock.now
        let length = bytes.readableBytes
        if listener.pending == nil { listener.pending = bytes } else { listener.pending!.writeBuffer(&bytes) }
        while let buffer = listener.pending, buffer.readableBytes >= 5,
            let size = buffer.getInteger(at: buffer.readerIndex + 1, as: UInt32.self), buffer.readableBytes >= 5 + Int(size)
        {
            listener.pending!.moveReaderIndex(forwardBy: 5)
            let message = listener.pending!.readSlice(length: Int(size))!
            let seen = message.withUnsafeReadableBytes { LeanResponse($0) }
            if !listener.isReady {
                if case .snapshot = seen {
                    listener.isReady = true
                    ready.countDown()
                }
                continue
            }
            guard case .document(let name) = seen else { continue }
            if let index = name.lastIndex(of: "m").flatMap({ Int(name[name.index(after: $0)...]) }) {
                if measured.contains(index), let sample = deliveries.latency(of: index, at: now) { listener.samples.append(sample) }
                if index == measured.upperBound - 1 { samples.add(listener.samples) }
            }
            deliveries.delivered(1)
        }
        if listener.pending?.readableBytes == 0 { listener.pending = nil }
        listener.unacknowledged += length
        if listener.unacknowledged >= 1 << 15 {
            context.write(wrapOutboundOut(HTTP2Frame(streamID: frame.streamID, payload: .windowUpdate(windowSizeIncrement: listener.unacknowledged))), promise: nil)
            listener.unacknowledged = 0
        }
        listeners[frame.streamID] = listener
        unacknowledged += length
        if unacknowledged >= 1 << 15 {
            context.write(wrapOutboundOut(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: unacknowledged))), promise: nil)
            unacknowledged = 0
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
        context.fireChannelReadComplete()
    }
}

/// What a lean listener needs of a `ListenResponse`, read off its wire bytes (decoding each message whole
/// with SwiftProtobuf cost the listeners more than the server spent sending it).
enum LeanResponse {
    /// A global snapshot: a target change with no target ids and a read time.
    case snapshot
    /// A document change, with the document's name.
    case document(String)
    case other

    /// Reads `message`: `ListenResponse { target_change = 2 { target_ids = 2, read_time = 6 },
    /// document_change = 3 { document = 1 { name = 1 } } }`.
    init(_ message: UnsafeRawBufferPointer) {
        if let change = Self.field(2, in: message) {
            let targets = Self.field(2, in: change)
            self = (targets?.isEmpty ?? true) && Self.field(6, in: change) != nil ? .snapshot : .other
        } else if let change = Self.field(3, in: message), let document = Self.field(1, in: change),
            let name = Self.field(1, in: document)
        {
            self = .document(String(decoding: name, as: UTF8.self))
        } else {
            self = .other
        }
    }

    /// The bytes of the first length-delimited field `number` of `message`, or nil.
    static func field(_ number: Int, in message: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        var offset = 0
        func varint() -> Int? {
            var value = 0
            var shift = 0
            while offset < message.count, shift < 64 {
                let byte = message[offset]
                offset += 1
                value |= Int(byte & 0x7f) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
            return nil
        }
        while offset < message.count, let key = varint() {
            switch key & 7 {
            case 0: guard varint() != nil else { return nil }
            case 1: offset += 8
            case 5: offset += 4
            case 2:
                guard let length = varint(), length >= 0, offset + length <= message.count else { return nil }
                if key >> 3 == number { return UnsafeRawBufferPointer(rebasing: message[offset..<(offset + length)]) }
                offset += length
            default: return nil
            }
        }
        return nil
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
