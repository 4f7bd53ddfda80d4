import NIOCore

/// The protocols a connection on a port shared by REST and gRPC may speak.
enum WireProtocol: Sendable, Equatable {
    /// HTTP/1.1 (REST, server-sent events, WebSocket upgrades).
    case http1
    /// HTTP/2 cleartext with prior knowledge (gRPC).
    case http2

    /// The connection preface every HTTP/2 client sends first (RFC 9113 §3.4).
    static let http2Preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    /// The protocol a connection whose first bytes are `opening` speaks: HTTP/2 once the whole preface has
    /// arrived, HTTP/1.1 as soon as a byte differs from it; `nil` while `opening` is a strict prefix of it.
    init?(opening: ByteBufferView) {
        for (byte, expected) in zip(opening, Self.http2Preface) where byte != expected {
            self = .http1
            return
        }
        guard opening.count >= Self.http2Preface.count else { return nil }
        self = .http2
    }
}
