import EmulatorCore

/// Writes the server makes when this client's connection goes away: closed cleanly (`disconnect()`) or
/// dropped (`interrupt()`, a killed app, a lost network). The rules are checked when they are registered;
/// `ServerValue` placeholders are resolved when they run.
extension DatabaseReference {
    /// When the connection goes away, replace the data here with `value`.
    public func onDisconnectSetValue(_ value: JSONValue) async throws(ClientError) {
        _ = try await client.connection.call("o", ["p": .string(path), "d": value])
    }

    /// When the connection goes away, replace the children named by `values`' keys (paths allowed).
    public func onDisconnectUpdateChildValues(_ values: [String: JSONValue]) async throws(ClientError) {
        _ = try await client.connection.call("om", ["p": .string(path), "d": .object(values)])
    }

    /// When the connection goes away, remove the data here.
    public func onDisconnectRemoveValue() async throws(ClientError) {
        try await onDisconnectSetValue(.null)
    }

    /// Cancels this connection's onDisconnect writes here and below (a write registered higher up keeps
    /// its other parts).
    public func cancelDisconnectOperations() async throws(ClientError) {
        _ = try await client.connection.call("oc", ["p": .string(path), "d": .null])
    }
}
