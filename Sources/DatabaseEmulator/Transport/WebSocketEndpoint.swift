import EmulatorCore
import EmulatorHTTP
import HTTPTypes
import HummingbirdWebSocket
import Logging
import NIOWebSocket
import Synchronization

/// Upgrades `GET /.ws?v=5&ns=...` to the wire protocol v5 and serves the connection: hello first, then the
/// client's frames are reassembled and handled in order while a writer drains the connection's outbox.
final class WebSocketEndpoint: Sendable {
    let databases: Databases
    /// Which hosts and pages may connect (WebSockets are not subject to CORS: a page on any site could
    /// otherwise open one).
    let access: LocalAccess
    /// The long-polling sessions a WebSocket with `s=<session>` takes over (the SDK's upgrade).
    let longPolling: LongPollEndpoint
    private let sessions = Atomic<UInt64>(0)

    /// The largest reassembled message accepted (larger: the connection ends).
    static let messageLimit = 64 << 20

    init(databases: Databases, access: LocalAccess, longPolling: LongPollEndpoint) {
        self.databases = databases
        self.access = access
        self.longPolling = longPolling
    }

    /// Whether a request is an upgrade to serve, and how. One refused (a foreign page or host, a bad
    /// namespace) is not upgraded: the HTTP side answers it with its error.
    func shouldUpgrade(_ request: HTTPRequest) -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        guard let target = request.path, target == "/.ws" || target.hasPrefix("/.ws?") || target.hasPrefix("/.ws/") else {
            return .dontUpgrade
        }
        let query = target.firstIndex(of: "?").map { String(target[target.index(after: $0)...]) } ?? ""
        let host = request.authority ?? "localhost"
        let fields = FormFields(parsing: query)
        guard access.refusal(host: request.authority, origin: request.headerFields[.origin]) == nil,
            let namespace = try? databases.namespace(requested: fields["ns"], host: host)
        else { return .dontUpgrade }
        if let upgraded = fields["s"] {
            // The SDK moving a long-polling session to a WebSocket; an unknown session is not upgraded.
            guard let session = longPolling.upgradable(upgraded) else { return .dontUpgrade }
            return .upgrade([:]) { [self] inbound, outbound, context in
                await takeOver(session, inbound: inbound, outbound: outbound, logger: context.logger)
            }
        }
        let session = sessions.add(1, ordering: .relaxed).newValue
        return .upgrade([:]) { [self] inbound, outbound, context in
            await serve(
                inbound: inbound, outbound: outbound, logger: context.logger, namespace: namespace, host: host,
                sessionID: "hearth-\(session)")
        }
    }

    /// Serves a WebSocket that takes `session` over: it is acknowledged (`a`, after which the client pings it
    /// until two pongs make it healthy), pings are answered until the client ends transmission on the long
    /// poll; then the connection's frames come here, and the client's go to the connection.
    /// When this socket goes, the connection ends if it was handed over (else the long poll goes on).
    private func takeOver(
        _ session: LongPollSession, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, logger: Logger
    ) async {
        let (frames, replies) = session.upgrade()
        // The client waits for the server's word on the new socket: an acknowledgement starts its pings.
        replies.yield(WireStateMachine.control("a", .object([:])).serialized())
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await frame in frames {
                    guard await Self.send(frame, to: outbound) else { return }
                }
                try? await outbound.close(.goingAway, reason: nil)
            }
            await Self.receive(from: inbound, logger: logger) { message in
                if let json = try? JSONValue.parse(message), json["t"]?.stringValue == "c" {
                    // Control messages of the upgrade: a ping is answered; the switch needs nothing.
                    if json["d"]?["t"]?.stringValue == "p" {
                        replies.yield(WireStateMachine.control("o", .null).serialized())
                    }
                    return true
                }
                return session.connection.receive(message)
            }
            if session.upgradeFailed() {
                replies.finish()
            } else {
                session.connection.close()
            }
        }
    }

    private func serve(
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, logger: Logger, namespace: String,
        host: String, sessionID: String
    ) async {
        let database = databases.database(namespace)
        let connection = WireConnection(database: database)
        connection.open(host: host, sessionID: sessionID)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await item in connection.outbox.items {
                    connection.outbox.taken()
                    guard await Self.send(WireStateMachine.render(item), to: outbound) else { return }
                }
                if connection.outbox.didOverflow {
                    logger.warning("database: closing a connection that fell \(connection.outbox.limit) messages behind")
                }
                try? await outbound.close(.goingAway, reason: nil)
            }
            await Self.receive(from: inbound, logger: logger, handle: connection.receive)
            connection.close()
        }
    }

    /// Writes one message in the wire protocol's frames; false once the socket cannot be written.
    private static func send(_ message: String, to outbound: WebSocketOutboundWriter) async -> Bool {
        for frame in FrameAssembler.frames(of: message) {
            do {
                try await outbound.write(.text(frame))
            } catch {
                return false
            }
        }
        return true
    }

    /// Reassembles the client's messages and hands each to `handle` until the socket ends, a message is too
    /// large or not text, or `handle` says the connection is over.
    private static func receive(
        from inbound: WebSocketInboundStream, logger: Logger, handle: (String) -> Bool
    ) async {
        var assembler = FrameAssembler(limit: messageLimit)
        do {
            reading: for try await message in inbound.messages(maxSize: messageLimit) {
                guard case .text(let text) = message else { break reading }
                switch assembler.receive(text) {
                case .pending: continue
                case .tooLarge: break reading
                case .message(let message):
                    if !handle(message) { break reading }
                }
            }
        } catch {
            logger.debug("database: connection ended: \(error)")
        }
    }
}
