import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A WebSocket to the database emulator's `/.ws` endpoint: text messages in (reassembled) and out, and two
/// ways to end it: a clean close handshake, or a cut without goodbye (the TCP connection reset, as when a
/// process is killed).
struct WireSocket: Sendable {
    /// The TCP channel.
    let channel: any Channel
    /// The server's messages, in order; finishes when the connection is gone.
    let messages: AsyncStream<String>

    /// The largest WebSocket frame accepted from the server.
    static let maximumFrameSize = 1 << 20
    /// How long connecting, and then upgrading to WebSocket, may take.
    static let handshakeTimeout: TimeAmount = .seconds(10)

    /// Opens `ws://address/.ws?v=5&ns=namespace`. Fails with `unavailable`.
    static func connect(to address: EmulatorAddress, namespace: String) async throws(ClientError) -> WireSocket {
        let target = "/.ws?v=5&ns=\(namespace.urlComponentEncoded)"
        let (messages, continuation) = AsyncStream.makeStream(of: String.self)
        let upgraded: (any Channel)?
        do {
            let result = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(handshakeTimeout)
                .connect(host: address.host, port: address.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try configure(channel, target: target, host: address.description, messages: continuation)
                    }
                }
            upgraded = try await result.get()
        } catch {
            continuation.finish()
            throw ClientError(.unavailable, message: "ws://\(address)\(target): \(error)")
        }
        guard let channel = upgraded else {
            continuation.finish()
            throw ClientError(.unavailable, message: "ws://\(address)\(target): the server refused to upgrade")
        }
        return WireSocket(channel: channel, messages: messages)
    }

    /// Sets up the HTTP upgrade to WebSocket; the result is the channel once upgraded, nil when refused.
    private static func configure(
        _ channel: any Channel, target: String, host: String, messages: AsyncStream<String>.Continuation
    ) throws -> EventLoopFuture<(any Channel)?> {
        let upgrader = NIOTypedWebSocketClientUpgrader<(any Channel)?>(maxFrameSize: maximumFrameSize) { channel, _ in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandlers(
                    NIOWebSocketFrameAggregator(
                        minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1 << 10,
                        maxAccumulatedFrameSize: maximumFrameSize),
                    WireFrameHandler(messages: messages))
                return channel
            }
        }
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: host)
        let configuration = NIOTypedHTTPClientUpgradeConfiguration<(any Channel)?>(
            upgradeRequestHead: HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: headers),
            upgraders: [upgrader],
            notUpgradingCompletionHandler: { channel in
                channel.close(promise: nil)
                return channel.eventLoop.makeSucceededFuture(nil)
            })
        var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: configuration)
        // The server's hello may come in the same read as its 101 response: keep those bytes for the WebSocket.
        pipeline.leftOverBytesStrategy = .forwardBytes
        let upgraded = try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
            configuration: pipeline)
        let deadline = channel.eventLoop.scheduleTask(in: handshakeTimeout) { channel.close(promise: nil) }
        upgraded.whenComplete { _ in deadline.cancel() }
        return upgraded
    }

    /// Sends one protocol message (split into frames when long).
    func send(_ message: String) {
        channel.writeAndFlush(WireFrameHandler.Outgoing.message(message), promise: nil)
    }

    /// Says goodbye with a close frame and waits until the connection is closed.
    func close() async {
        sayGoodbye()
        await closed()
    }

    /// Says goodbye with a close frame without waiting: the connection closes when the server answers (or
    /// after `WireFrameHandler.closeGracePeriod`). Does nothing once closed.
    func sayGoodbye() {
        channel.writeAndFlush(WireFrameHandler.Outgoing.goodbye, promise: nil)
    }

    /// Drops the connection without a goodbye: no close frame, and with `SO_LINGER` 0 the kernel resets the
    /// TCP connection instead of closing it in order. Waits until it is closed.
    func cut() async {
        if let options = channel as? any SocketOptionProvider {
            try? await options.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
        }
        try? await channel.close()
        await closed()
    }

    /// Returns once the connection is closed.
    private func closed() async {
        try? await channel.closeFuture.get()
    }
}
