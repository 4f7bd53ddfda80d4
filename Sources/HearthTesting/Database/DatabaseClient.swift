import DatabaseTree
import EmulatorCore
import Foundation

/// A Realtime Database client speaking the wire protocol v5 over a WebSocket, as the SDKs do, to the
/// database emulator: one connection to one database (namespace), as one identity.
///
/// ```swift
/// let database = try await DatabaseClient.connect(address: address, namespace: "demo-kit-default-rtdb",
///                                                 identity: .user("alice", projectID: "demo-kit"))
/// try await database.reference("presence/alice").setValue(["online": true])
/// ```
///
/// Unlike the SDKs it does not reconnect: after `disconnect()`, `interrupt()` or the server going away,
/// every operation fails with `ClientError` code `unavailable`, and every snapshot stream ends with it.
/// An operation waits at most 60 seconds for the server's response (then fails with `deadlineExceeded`)
/// and stops waiting when its task is cancelled (`cancelled`).
///
/// The connection lives as long as the client (a snapshot stream keeps its client alive while it lasts):
/// a client dropped without `disconnect()` says goodbye as `disconnect()` does, without waiting.
public final class DatabaseClient: Sendable {
    let connection: DatabaseConnection
    /// The server's clock minus this machine's, in milliseconds (from the server's hello).
    let serverTimeOffset: Int64
    private let pushIDs = PushIDGenerator()

    private init(connection: DatabaseConnection, serverTimeOffset: Int64) {
        self.connection = connection
        self.serverTimeOffset = serverTimeOffset
    }

    /// Connects to `ws://address/.ws?v=5&ns=namespace`, waits for the server's hello and, unless
    /// `identity` is unauthenticated, signs in with its token (`owner` for admin, which bypasses the
    /// rules). Fails with `unavailable` when the emulator cannot be reached, `unauthenticated` when it
    /// refuses the token.
    public static func connect(
        address: EmulatorAddress, namespace: String, identity: ClientIdentity
    ) async throws(ClientError) -> DatabaseClient {
        try await connect(address: address, namespace: namespace, identity: identity, deadlines: .init())
    }

    /// Connects as `connect(address:namespace:identity:)` does, waiting for the server as long as `deadlines`
    /// say.
    static func connect(
        address: EmulatorAddress, namespace: String, identity: ClientIdentity, deadlines: DatabaseConnection.Deadlines
    ) async throws(ClientError) -> DatabaseClient {
        let socket = try await WireSocket.connect(to: address, namespace: namespace)
        let connection = DatabaseConnection(socket: socket, deadlines: deadlines)
        do {
            let serverTime = try await connection.start()
            if let token = identity.token {
                // The JS SDK sends credentials that are not ID tokens (the admin's `owner`) as `gauth`.
                _ = try await connection.call(identity == .admin ? "gauth" : "auth", ["cred": .string(token)])
            }
            return DatabaseClient(connection: connection, serverTimeOffset: serverTime - Date().millisecondsSince1970)
        } catch {
            await connection.close(goodbye: true)
            throw error
        }
    }

    deinit {
        connection.socket.sayGoodbye()
    }

    /// The reference to `path` (`/` is the root; `a/b` and `/a/b` are the same).
    public func reference(_ path: String = "/") -> DatabaseReference {
        DatabaseReference(client: self, location: DatabasePath(path))
    }

    /// Goes offline cleanly: a WebSocket close handshake, after which the server runs this connection's
    /// onDisconnect operations (as production does on any close). Returns once the connection is closed;
    /// calling it again does nothing.
    public func disconnect() async {
        await connection.close(goodbye: true)
    }

    /// Drops the connection without a goodbye, as when the app is killed or the network goes away: no
    /// close frame, the TCP connection is reset. The server notices and runs this connection's
    /// onDisconnect operations. Returns once the connection is closed.
    public func interrupt() async {
        await connection.close(goodbye: false)
    }

    /// A new push id, from the server's time as this client estimates it.
    func nextPushID() -> String {
        pushIDs.next(now: Date().millisecondsSince1970 + serverTimeOffset)
    }
}
