import DatabaseTree
import EmulatorCore

/// A location in the database, reached through one client's connection: reads, writes and listens there.
/// Writes finish when the server acknowledged them; a refusal is a `ClientError` (`permissionDenied` when
/// the rules deny it, `invalidArgument` for data the database cannot store).
public struct DatabaseReference: Sendable {
    let client: DatabaseClient
    let location: DatabasePath

    /// The location, `/a/b` (the root is `/`).
    public var path: String { location.description }

    /// The last key of the location; nil at the root.
    public var key: String? { location.last }

    /// The reference one level up; nil at the root.
    public var parent: DatabaseReference? {
        location.isRoot ? nil : DatabaseReference(client: client, location: location.parent)
    }

    /// The reference to `path` below this one (`a` or `a/b`).
    public func child(_ path: String) -> DatabaseReference {
        DatabaseReference(client: client, location: location.appending(DatabasePath(path)))
    }

    /// A reference to a new child named by a push id: chronological, unique, made on this machine.
    public func childByAutoId() -> DatabaseReference {
        child(client.nextPushID())
    }

    /// Replaces the data here with `value` (`null` removes it); `ServerValue` placeholders are resolved
    /// by the server.
    public func setValue(_ value: JSONValue) async throws(ClientError) {
        _ = try await client.connection.call("p", ["p": .string(path), "d": value])
    }

    /// Replaces the children named by `values`' keys, which may be paths below this location (`a/b`);
    /// `null` removes one. Other children stay as they are.
    public func updateChildValues(_ values: [String: JSONValue]) async throws(ClientError) {
        _ = try await client.connection.call("m", ["p": .string(path), "d": .object(values)])
    }

    /// Removes the data here.
    public func removeValue() async throws(ClientError) {
        try await setValue(.null)
    }

    /// Reads the data here once, from the server.
    public func getData() async throws(ClientError) -> DataSnapshot {
        let data = try await client.connection.call("g", ["p": .string(path), "q": [:]])
        do {
            return DataSnapshot(node: try DataNode(json: data), at: location)
        } catch {
            let message = "The server sent data at \(path) that cannot be stored: \(error.message)"
            throw ClientError(.internal, message: message)
        }
    }

    /// The data here (under `query`, when given): a snapshot once the server sent it, then one after each
    /// change. The stream ends with `permissionDenied` when the rules refuse the listen or revoke it later,
    /// and with `unavailable` when the connection closes. Ending the iteration stops listening.
    public func snapshots(_ query: DatabaseQuery? = nil) -> AsyncThrowingStream<DataSnapshot, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: DataSnapshot.self)
        let client = self.client  // kept until the stream ends: dropping it would close the connection
        let location = self.location
        let subscribing = Task { await client.connection.subscribe(continuation, at: location, query: query) }
        continuation.onTermination = { _ in
            Task { await client.connection.unsubscribe(await subscribing.value) }
        }
        return stream
    }
}
