import NIOCore
import ServiceLifecycle

/// Where an `EmulatorServer` sends the connections that open with the HTTP/2 connection preface (HTTP/2
/// cleartext with prior knowledge, how gRPC clients connect), while HTTP/1.1 on the same port stays with the
/// server's responder. The official Firestore emulator detects the protocol per connection the same way.
///
/// The server runs the hand-off as a service beside its listener: it accepts no connection before
/// `waitUntilReady()` returns, and begins the hand-off's graceful shutdown only after its own listener has
/// shut down.
public protocol HTTP2Handoff: Service {
    /// Returns once connections can be taken over; throws if the hand-off stopped before that.
    func waitUntilReady() async throws

    /// Takes over `channel`, a connection whose first bytes are the HTTP/2 preface. Called on the channel's
    /// event loop: installs the handlers that will read the connection, which owns it from then on. When the
    /// future succeeds the server replays the bytes it has read so far into them; when it fails the server
    /// closes the connection.
    func takeOver(_ channel: any Channel) -> EventLoopFuture<Void>
}
