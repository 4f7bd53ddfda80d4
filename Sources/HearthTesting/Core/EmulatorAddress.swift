/// Where one emulator listens, as the `*_EMULATOR_HOST` variables and the hub report it.
public struct EmulatorAddress: Sendable, Hashable, CustomStringConvertible {
    /// The host to connect to (`127.0.0.1`, `localhost` or `::1`).
    public var host: String
    /// The port it listens on.
    public var port: Int

    /// An address from its parts.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Reads `host:port` (also `[::1]:port` and `http://host:port`, as `STORAGE_EMULATOR_HOST` is written);
    /// nil when it has no port.
    public init?(_ text: String) {
        var rest = Substring(text)
        for scheme in ["http://", "https://"] where rest.hasPrefix(scheme) { rest = rest.dropFirst(scheme.count) }
        while rest.hasSuffix("/") { rest = rest.dropLast() }
        guard let colon = rest.lastIndex(of: ":"), let port = Int(rest[rest.index(after: colon)...]),
            (0...65_535).contains(port)
        else { return nil }
        var host = rest[..<colon]
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        guard !host.isEmpty else { return nil }
        self.init(host: String(host), port: port)
    }

    /// `host:port`, with brackets around an IPv6 host.
    public var description: String { (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }

    /// `http://host:port`.
    public var baseURL: String { "http://\(description)" }
}
