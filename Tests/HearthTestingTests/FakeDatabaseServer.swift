import EmulatorCore
import HearthTesting
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Testing

/// A stand-in for the database emulator's `/.ws` endpoint on a free loopback port, for what the emulator
/// never does (stay silent, shut a connection, send data a client cannot store): each connection is
/// upgraded to WebSocket and served by a test's script.
enum FakeDatabaseServer {
    typealias WebSocket = NIOAsyncChannel<WebSocketFrame, WebSocketFrame>

    /// One client connection, from the server's end. The client's messages are short: one frame each.
    struct Peer {
        var frames: NIOAsyncChannelInboundStream<WebSocketFrame>.AsyncIterator
        let outbound: NIOAsyncChannelOutboundWriter<WebSocketFrame>

        /// Sends one protocol message.
        func send(_ message: JSONValue) async throws {
            try await outbound.write(
                WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: message.serialized())))
        }

        /// Sends the hello, as the emulator does first.
        func sayHello() async throws {
            try await send(["t": "c", "d": ["t": "h", "d": ["ts": 0, "v": "5", "h": "localhost", "s": "fake"]]])
        }

        /// The client's next message; nil once it said goodbye or went away.
        mutating func next() async throws -> JSONValue? {
            while let frame = try await frames.next() {
                switch frame.opcode {
                case .text:
                    var data = frame.unmaskedData
                    return try JSONValue.parse(data.readString(length: data.readableBytes) ?? "")
                case .connectionClose:
                    return nil
                default:
                    continue
                }
            }
            return nil
        }

        /// Reads the client's messages without answering until it leaves.
        mutating func ignoreAll() async throws {
            while try await next() != nil {}
        }
    }

    /// Runs `body` with the server's address while `script` serves each connection (which closes when the
    /// script returns); then stops the server.
    static func run(
        serving script: @escaping @Sendable (inout Peer) async throws -> Void,
        _ body: (EmulatorAddress) async throws -> Void
    ) async throws {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture { try upgrade(channel) }
            }
        let port = try #require(server.channel.localAddress?.port)
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask {
                // Ends (with `CancellationError`) when the group is cancelled.
                try? await server.executeThenClose { connections in
                    try await withThrowingDiscardingTaskGroup { serving in
                        for try await upgraded in connections {
                            serving.addTask {
                                guard let socket = try? await upgraded.get() else { return }
                                try? await socket.executeThenClose { inbound, outbound in
                                    var peer = Peer(frames: inbound.makeAsyncIterator(), outbound: outbound)
                                    try await script(&peer)
                                }
                            }
                        }
                    }
                }
            }
            try await body(EmulatorAddress(host: "127.0.0.1", port: port))
            group.cancelAll()
        }
    }

    /// Upgrades any request to WebSocket.
    private static func upgrade(_ channel: any Channel) throws -> EventLoopFuture<WebSocket?> {
        let upgrader = NIOTypedWebSocketServerUpgrader<WebSocket?>(
            shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture { try WebSocket(wrappingChannelSynchronously: channel) }
            })
        let configuration = NIOTypedHTTPServerUpgradeConfiguration<WebSocket?>(
            upgraders: [upgrader],
            notUpgradingCompletionHandler: { channel in
                channel.close(promise: nil)
                return channel.eventLoop.makeSucceededFuture(nil)
            })
        return try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(
            configuration: .init(upgradeConfiguration: configuration))
    }
}
