import EmulatorCore
import EmulatorHTTP

/// An emulator of the suite that is listening.
public struct RunningEmulator: Sendable, Equatable {
    /// Which emulator.
    public var name: EmulatorName
    /// The host it listens on.
    public var host: String
    /// The real port (never 0).
    public var port: Int

    /// Creates a record of a listening emulator.
    public init(name: EmulatorName, host: String, port: Int) {
        self.name = name
        self.host = host
        self.port = port
    }

    /// `host:port`, with IPv6 hosts in brackets.
    public var hostAndPort: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// The addresses it listens on: its host, and `::1` beside the default host (see
    /// `EmulatorServer.companionHost(of:)`).
    public var listenHosts: [String] { EmulatorServer.listenHosts(of: host) }

    /// The host a client should connect to: wildcard listen addresses map to loopback.
    public var connectHost: String {
        switch host {
        case "0.0.0.0": return "127.0.0.1"
        case "::": return "::1"
        default: return host
        }
    }

    /// `connectHost:port`, for environment variables and the hub.
    public var connectAddress: String {
        connectHost.contains(":") ? "[\(connectHost)]:\(port)" : "\(connectHost):\(port)"
    }
}
