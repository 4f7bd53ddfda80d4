import GRPCCore
import NIOCore
import NIOHPACK

/// A gRPC service served on its connections' event loops by `GRPCConnectionHandler`: each call is answered
/// as soon as its request has arrived (a call that runs under a lock and returns: Firestore's unary RPCs and
/// its server-streaming ones whose responses are all known at once), or served as a stream from its first
/// request message on (`Listen`, `Write`). There is no per-call task and no thread hop.
protocol ImmediateGRPCResponder: Sendable {
    /// What answers calls to `path` (`/package.Service/Method`) once their one request message is in; nil
    /// if `path` is not a call of this kind.
    func immediateAnswerer(path: String) -> ImmediateGRPCAnswerer?

    /// A long-lived call to `path` served on the event loop from its first message on, writing to `output`;
    /// nil if `path` is not a call of this kind. Asked first, when the call's headers arrive.
    func immediateStream(path: String, headers: HPACKHeaders, output: any ImmediateGRPCStreamOutput)
        -> (any ImmediateGRPCStream)?
}

extension ImmediateGRPCResponder {
    /// No call is served as a stream unless the responder says so.
    func immediateStream(path: String, headers: HPACKHeaders, output: any ImmediateGRPCStreamOutput)
        -> (any ImmediateGRPCStream)?
    {
        nil
    }
}

/// A streaming call served on its connection's event loop. Every method is called on that loop, in the
/// order things happen on the stream; after `requestsEnded()` or `closed()`, or once the call has finished
/// its output, none is called again but `closed()`.
protocol ImmediateGRPCStream: AnyObject {
    /// The client's next request message (decompressed, without the gRPC length prefix).
    func receive(_ message: ByteBuffer)
    /// The client ended its requests (the call may go on answering, or finish).
    func requestsEnded()
    /// The call is over before it finished its output: the client reset the stream, the connection closed,
    /// or the call's deadline passed (the connection has ended the call).
    func closed()
}

/// Where an `ImmediateGRPCStream` writes. Use on the stream's event loop.
protocol ImmediateGRPCStreamOutput: AnyObject {
    /// The stream's event loop.
    var eventLoop: any EventLoop { get }
    /// Whether the stream takes more output without queueing it (the client reads).
    var isWritable: Bool { get }
    /// Where buffers for `send` come from.
    var allocator: ByteBufferAllocator { get }
    /// Sends response messages, each with its gRPC prefix, and flushes (a flush that `FlushBatch` may hold
    /// for the rest of a pass).
    func send(framed messages: ByteBuffer)
    /// Ends the call with status OK, or `error`'s; nothing is sent after it.
    func finish(_ error: RPCError?)
}

/// Answers one call from its request message (decompressed, without the gRPC length prefix) and headers.
typealias ImmediateGRPCAnswerer = @Sendable (_ message: ByteBuffer, _ headers: HPACKHeaders) -> ImmediateGRPCAnswer

/// What an `ImmediateGRPCAnswerer` answers.
enum ImmediateGRPCAnswer: Sendable {
    /// These response messages (serialized), then status OK.
    case messages([[UInt8]])
    /// This status, with no messages.
    case failure(RPCError)
    /// The answer `work` gives, once it has waited for something (a transaction's commit waiting for an
    /// older transaction); it runs as a task, and its answer is written on the connection's event loop.
    case later(@Sendable () async -> ImmediateGRPCAnswer)
}

extension ByteBuffer {
    /// Writes the prefix of an uncompressed gRPC message of `length` bytes (flag 0, big-endian length).
    mutating func writeGRPCPrefix(length: Int) {
        writeInteger(UInt8(0))
        writeInteger(UInt32(length))
    }

    /// Writes `message` as one uncompressed gRPC message: its prefix, then its bytes.
    mutating func writeGRPCMessage(_ message: [UInt8]) {
        writeGRPCPrefix(length: message.count)
        writeBytes(message)
    }
}
