import EmulatorCore

/// Placeholders the database server replaces when it applies a write (also an onDisconnect write, when it
/// runs): its clock, or an increment of the number already there.
public enum ServerValue {
    /// The server's time in milliseconds since the epoch (`{".sv": "timestamp"}`).
    public static let timestamp: JSONValue = [".sv": "timestamp"]

    /// The number already at the location plus `delta`, or `delta` when there is none
    /// (`{".sv": {"increment": delta}}`).
    public static func increment(_ delta: Double) -> JSONValue {
        let amount: JSONValue =
            delta.rounded() == delta && abs(delta) <= 9_007_199_254_740_992 ? .int(Int64(delta)) : .double(delta)
        return [".sv": ["increment": amount]]
    }
}
