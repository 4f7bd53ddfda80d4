import NIOCore
import NIOEmbedded
import Synchronization
import Testing

@testable import EmulatorHTTP

/// The first handler of a shared port's connections, without a network: it tells HTTP/1.1 from HTTP/2 by
/// the first bytes, has the protocol installed, replays what it read and steps aside.
@Suite struct ProtocolSnifferTests {
    /// A sniffer on an embedded channel whose installs are recorded.
    final class Harness: Sendable {
        /// The protocols installed, in order.
        final class Installs: Sendable {
            let list = Mutex<[WireProtocol]>([])
            func withLock<T>(_ body: (inout [WireProtocol]) -> T) -> T { list.withLock { body(&$0) } }
        }

        let channel: EmbeddedChannel
        let installs = Installs()
        let installed: EventLoopFuture<WireProtocol>

        init() throws {
            channel = EmbeddedChannel()
            let promise = channel.eventLoop.makePromise(of: WireProtocol.self)
            installed = promise.futureResult
            let installs = installs
            let sniffer = ProtocolSniffer(installed: promise) { wire, channel in
                installs.withLock { $0.append(wire) }
                return channel.eventLoop.makeSucceededFuture(wire)
            }
            try channel.pipeline.syncOperations.addHandler(sniffer)
        }

        /// Everything passed on behind the sniffer, as one text.
        func passedOn() throws -> String {
            var text = ""
            while var buffer = try channel.readInbound(as: ByteBuffer.self) {
                text += buffer.readString(length: buffer.readableBytes) ?? ""
            }
            return text
        }
    }

    @Test func http1IsKnownAtTheFirstByteThatDiffersAndReplayed() throws {
        let harness = try Harness()
        try harness.channel.writeInbound(ByteBuffer(string: "P"))  // could still be the HTTP/2 preface
        #expect(harness.installs.withLock { $0 }.isEmpty)
        #expect(try harness.passedOn() == "")
        try harness.channel.writeInbound(ByteBuffer(string: "OST /v1 HTTP/1.1\r\n"))
        #expect(harness.installs.withLock { $0 } == [.http1])
        #expect(try harness.installed.wait() == .http1)
        #expect(try harness.passedOn() == "POST /v1 HTTP/1.1\r\n", "every byte read, in order")
        try harness.channel.writeInbound(ByteBuffer(string: "Host: x\r\n"))
        #expect(try harness.passedOn() == "Host: x\r\n", "the sniffer has stepped aside")
        #expect(harness.installs.withLock { $0 } == [.http1], "installed once")
    }

    @Test func http2NeedsTheWholePrefaceEvenInPieces() throws {
        let harness = try Harness()
        let preface = String(decoding: WireProtocol.http2Preface, as: UTF8.self)
        for character in preface.dropLast() {
            try harness.channel.writeInbound(ByteBuffer(string: String(character)))
        }
        #expect(harness.installs.withLock { $0 }.isEmpty, "a strict prefix decides nothing")
        try harness.channel.writeInbound(ByteBuffer(string: String(preface.last!) + "frames"))
        #expect(try harness.installed.wait() == .http2)
        #expect(try harness.passedOn() == preface + "frames")
    }

    @Test func aConnectionThatEndsBeforeNamingItsProtocolFails() throws {
        let harness = try Harness()
        try harness.channel.writeInbound(ByteBuffer(string: "PRI"))
        _ = try? harness.channel.finish()
        #expect(throws: (any Error).self) { try harness.installed.wait() }
        #expect(harness.installs.withLock { $0 }.isEmpty)
    }
}
