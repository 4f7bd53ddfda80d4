import Synchronization

/// Who may reach an emulator through a browser: the guard against web pages the developer visits.
///
/// A page on another site can send requests to `127.0.0.1` (CORS stops it reading most answers, not
/// sending "simple" requests), and a site whose name it points at `127.0.0.1` (DNS rebinding) can read the
/// answers too. Production's CORS is open because its data is guarded by real credentials; the emulators
/// accept `Bearer owner`, so their data is guarded by nothing. Two checks close both holes while every
/// local client keeps working:
/// - **Host**: a request must name a host that no outside site can make resolve to this machine: an IP
///   literal (`127.0.0.1`, `10.0.2.2` from the Android emulator, `[::1]`), `localhost` or `*.localhost`, a
///   name of one label (`emulators`, a Docker Compose service), `*.local` and `*.internal`
///   (`host.docker.internal`), the production domains the SDKs may name (`<ns>.firebaseio.com`), or the host
///   the suite was told to listen on. A request without `Host` (HTTP/1.0) is allowed.
/// - **Origin**: a request sent by a page (it has `Origin`) must come from a page served by this machine or
///   the local network: an origin whose host is loopback or a private or link-local address, or a name
///   allowed above that is not a public production domain. `Origin: null` (sandboxed frames, `file:`
///   pages) is refused: any site can produce it. Requests without `Origin` (SDKs outside a browser, curl,
///   test runners) are allowed.
public struct LocalAccess: Sendable, Equatable {
    /// The host the suite listens on (`127.0.0.1`, `0.0.0.0`, or a name the user chose).
    public var boundHost: String
    /// The answers given so far (shared by copies; keyed by the bound host too).
    private let answers = Answers()

    /// A policy for a suite listening on `boundHost`.
    public init(boundHost: String = "127.0.0.1") {
        self.boundHost = Self.normalized(boundHost)
    }

    /// Policies are equal when they serve the same bound host.
    public static func == (lhs: LocalAccess, rhs: LocalAccess) -> Bool {
        lhs.boundHost == rhs.boundHost
    }

    /// Why a request is refused, if it is: `host` is its `Host` (or `:authority`), `origin` its `Origin`.
    /// A client sends the same two on every request, so the answer is remembered (the checks walk the
    /// names character by character: ~8 µs a request).
    public func refusal(host: String?, origin: String?) -> String? {
        let key = Answers.Key(boundHost: boundHost, host: host, origin: origin)
        if let known = answers[key] { return known.refusal }
        let refusal = decide(host: host, origin: origin)
        answers[key] = Answers.Answer(refusal: refusal)
        return refusal
    }

    private func decide(host: String?, origin: String?) -> String? {
        if let host, !allowsHost(host) {
            return "Hearth answers only requests for a local host name; '\(host)' is not one (this guards against DNS rebinding)."
        }
        if let origin, !allowsOrigin(origin) {
            return "Hearth answers only pages served from this machine or its local network; origin '\(origin)' is not one."
        }
        return nil
    }

    /// Whether a `Host` header (`name`, `name:port`, `[v6]:port`) names this machine safely.
    public func allowsHost(_ authority: String) -> Bool {
        guard let name = Self.hostName(ofAuthority: authority) else { return false }
        if Self.isIPAddress(name) || Self.isLocalName(name) || name == boundHost { return true }
        return Self.productionDomains.contains { name.hasSuffix($0) }
    }

    /// Whether an `Origin` header (`scheme://host[:port]`) is a page of this machine or its network.
    public func allowsOrigin(_ origin: String) -> Bool {
        guard let separator = origin.firstRange(of: "://") else { return false }
        guard let name = Self.hostName(ofAuthority: String(origin[separator.upperBound...])) else { return false }
        if name == boundHost || Self.isLocalName(name) { return true }
        if let octets = Self.ipv4(name) { return Self.isPrivate(octets) }
        if name.contains(":") { return Self.isPrivateIPv6(name) }
        return false
    }

    // MARK: - Names

    /// Production hosts the SDKs or tools may put in `Host`; no outside page can point them here.
    private static let productionDomains = [
        ".firebaseio.com", ".firebasedatabase.app", "firebasestorage.googleapis.com", "storage.googleapis.com",
        "firestore.googleapis.com", "identitytoolkit.googleapis.com", "securetoken.googleapis.com",
    ]

    /// Lowercased, without a trailing dot or IPv6 brackets.
    static func normalized(_ name: String) -> String {
        var name = name.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        return name
    }

    /// The host of `name[:port]` or `[v6][:port]` (userinfo and path refused), normalized; `nil` when
    /// malformed.
    static func hostName(ofAuthority authority: String) -> String? {
        let authority = authority.hasSuffix("/") ? String(authority.dropLast()) : authority
        guard !authority.isEmpty, !authority.contains(where: { "/@?# \t\\".contains($0) }) else { return nil }
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            let rest = authority[authority.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isASCIIDigit)) else { return nil }
            return normalized(String(authority[authority.index(after: authority.startIndex)..<close]))
        }
        let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count <= 2, !parts[0].isEmpty else { return nil }
        if parts.count == 2, !parts[1].allSatisfy(\.isASCIIDigit) { return nil }
        return normalized(String(parts[0]))
    }

    /// `localhost`, `*.localhost`, a single label, `*.local`, `*.internal`: names resolved only on this
    /// machine or its network, never by a public site's DNS.
    static func isLocalName(_ name: String) -> Bool {
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "_") })
        else { return false }
        if !name.contains(".") { return true }
        return name.hasSuffix(".localhost") || name.hasSuffix(".local") || name.hasSuffix(".internal")
    }

    /// Whether `name` is an IPv4 or IPv6 literal.
    static func isIPAddress(_ name: String) -> Bool {
        ipv4(name) != nil || (name.contains(":") && name.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." })
    }

    /// The four octets of a dotted IPv4 literal.
    static func ipv4(_ name: String) -> [UInt8]? {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        let octets = parts.compactMap { part -> UInt8? in
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCIIDigit) else { return nil }
            return UInt8(part)
        }
        return octets.count == 4 ? octets : nil
    }

    /// Loopback, private (RFC 1918), link-local or unspecified IPv4.
    static func isPrivate(_ octets: [UInt8]) -> Bool {
        switch (octets[0], octets[1]) {
        case (127, _), (10, _), (0, _), (192, 168), (169, 254): return true
        case (172, let second): return (16...31).contains(second)
        default: return false
        }
    }

    /// Loopback (`::1`), unique local (`fc00::/7`), link-local (`fe80::/10`) or IPv4-mapped private IPv6.
    static func isPrivateIPv6(_ name: String) -> Bool {
        if name == "::1" || name == "::" { return true }
        if name.hasPrefix("::ffff:"), let octets = ipv4(String(name.dropFirst("::ffff:".count))) { return isPrivate(octets) }
        guard let first = name.split(separator: ":").first, let group = UInt16(first, radix: 16) else { return false }
        return group & 0xFE00 == 0xFC00 || group & 0xFFC0 == 0xFE80
    }
}

/// The answers `LocalAccess.refusal` gave, at most `limit` of them (then they start again).
private final class Answers: Sendable {
    struct Key: Hashable {
        var boundHost: String
        var host: String?
        var origin: String?
    }

    struct Answer {
        var refusal: String?
    }

    static let limit = 256
    private let answers = Mutex<[Key: Answer]>([:])

    subscript(key: Key) -> Answer? {
        get { answers.withLock { $0[key] } }
        set {
            answers.withLock { answers in
                if answers.count >= Self.limit { answers.removeAll(keepingCapacity: true) }
                answers[key] = newValue
            }
        }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
