import EmulatorCore
import NIOHPACK

/// The checks HTTP/2 asks of a header block a client sends (RFC 9113 § 8.2, § 8.3), made here because
/// NIOHTTP2's own validation is turned off: it checked every header block in and out, our own responses
/// included, at ~24,000 instructions a call (15 % of a gRPC get). The same rules as NIOHTTP2's: field names
/// are lowercase tokens; pseudo-header fields come first, once each, only those a request may carry
/// (`:method`, `:scheme`, `:path` and `:authority`, or `:method` and `:authority` for CONNECT), with no
/// space or control character in their values and a non-empty `:path`; no connection-specific field;
/// `te` only as `trailers`; no NUL, CR or LF in any value. Trailers carry no pseudo-header field.
enum HeaderBlockCheck {
    /// What a header block is.
    enum Kind {
        /// A request's headers, opening a stream.
        case request
        /// A request's trailers.
        case trailers
    }

    /// Whether `headers` is a well-formed block of `kind`; a malformed one resets its stream
    /// (`PROTOCOL_ERROR`), as NIOHTTP2 resets it.
    static func isWellFormed(_ headers: HPACKHeaders, _ kind: Kind) -> Bool {
        var seen: Pseudo = []
        var regularBegun = false
        var isConnect = false
        for (name, value, _) in headers {
            var name = name
            var value = value
            let valid = name.withUTF8 { name -> Bool in
                value.withUTF8 { value -> Bool in
                    guard let first = name.first else { return false }
                    if first == UInt8(ascii: ":") {
                        let base = UnsafeBufferPointer(rebasing: name[1...])
                        guard kind == .request, !regularBegun, isToken(base), let pseudo = Pseudo(base), seen.isDisjoint(with: pseudo),
                            !value.contains(where: { $0 <= 0x20 || $0 == 0x7F })
                        else { return false }
                        seen.formUnion(pseudo)
                        if pseudo == .method { isConnect = equal(value, "CONNECT") }
                        return pseudo != .path || !value.isEmpty
                    }
                    regularBegun = true
                    guard isToken(name), !isConnectionSpecific(name), !value.contains(where: { $0 == 0 || $0 == 0x0A || $0 == 0x0D })
                    else { return false }
                    return kind != .request || !equal(name, "te") || equal(value, "trailers")
                }
            }
            guard valid else { return false }
        }
        guard kind == .request else { return true }
        return isConnect ? seen == [.method, .authority] : seen.isSuperset(of: [.method, .scheme, .path])
    }

    /// The pseudo-header fields a request may carry, as bits (a `Set` cost more than the rest of the check).
    private struct Pseudo: OptionSet {
        let rawValue: UInt8

        static let method = Pseudo(rawValue: 1)
        static let scheme = Pseudo(rawValue: 2)
        static let path = Pseudo(rawValue: 4)
        static let authority = Pseudo(rawValue: 8)

        init(rawValue: UInt8) { self.rawValue = rawValue }

        /// The field named `name` (after its colon); `nil` for `:status`, `:protocol` (extended CONNECT is
        /// not offered) and unknown ones.
        init?(_ name: UnsafeBufferPointer<UInt8>) {
            switch name.count {
            case 6 where equal(name, "method"): self = .method
            case 6 where equal(name, "scheme"): self = .scheme
            case 4 where equal(name, "path"): self = .path
            case 9 where equal(name, "authority"): self = .authority
            default: return nil
            }
        }
    }

    /// Whether `bytes` are those of `text`.
    private static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ text: StaticString) -> Bool {
        bytes[...].equals(text)
    }

    /// Whether `name` is a token of lowercase `tchar`s (RFC 9110 § 5.6.2, lowercased by RFC 9113 § 8.2.1).
    private static func isToken(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !name.isEmpty else { return false }
        for byte in name {
            switch byte {
            case 0x21, 0x23...0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x30...0x39, 0x5E...0x7A, 0x7C, 0x7E: continue
            default: return false
            }
        }
        return true
    }

    /// Whether `name` is a connection-specific field, which HTTP/2 forbids (RFC 9113 § 8.2.2).
    private static func isConnectionSpecific(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        switch name.count {
        case 7: equal(name, "upgrade")
        case 10: equal(name, "connection") || equal(name, "keep-alive")
        case 16: equal(name, "proxy-connection")
        case 17: equal(name, "transfer-encoding")
        default: false
        }
    }
}
