import Crypto

/// The `hashing` namespace (rules.hashing): each function takes bytes or a string (hashed as UTF-8) and
/// returns the digest as bytes; CRC-32 and CRC-32C checksums are four bytes, big-endian (the byte order
/// Cloud Storage uses for `crc32c`).
extension Stdlib {
    /// The functions of rules.hashing.
    static let hashingFunctions: [String: Function] = [
        "hashing.crc32": Function(1...1) { arguments throws(RuleError) in
            .bytes(bigEndian(CRC32.ieee.checksum(try hashInput(arguments))))
        },
        "hashing.crc32c": Function(1...1) { arguments throws(RuleError) in
            .bytes(bigEndian(CRC32.castagnoli.checksum(try hashInput(arguments))))
        },
        "hashing.md5": Function(1...1) { arguments throws(RuleError) in
            .bytes(Array(Insecure.MD5.hash(data: try hashInput(arguments))))
        },
        "hashing.sha256": Function(1...1) { arguments throws(RuleError) in
            .bytes(Array(SHA256.hash(data: try hashInput(arguments))))
        },
    ]

    private static func hashInput(_ arguments: Arguments) throws(RuleError) -> [UInt8] {
        switch arguments[0] {
        case .bytes(let bytes): return bytes
        case .string(let string): return Array(string.utf8)
        default: throw arguments.mismatch
        }
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}

/// A table-driven, reflected CRC-32 with a given polynomial.
struct CRC32: Sendable {
    /// CRC-32 (ISO-HDLC, as zlib): polynomial 0x04C11DB7, reflected 0xEDB88320.
    static let ieee = CRC32(reflectedPolynomial: 0xEDB8_8320)
    /// CRC-32C (Castagnoli, as Cloud Storage): polynomial 0x1EDC6F41, reflected 0x82F63B78.
    static let castagnoli = CRC32(reflectedPolynomial: 0x82F6_3B78)

    private let table: [UInt32]

    private init(reflectedPolynomial: UInt32) {
        table = (0..<256).map { index in
            var value = UInt32(index)
            for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ reflectedPolynomial : value >> 1 }
            return value
        }
    }

    /// The checksum of `bytes`.
    func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = (crc >> 8) ^ table[Int((crc ^ UInt32(byte)) & 0xFF)] }
        return ~crc
    }
}
