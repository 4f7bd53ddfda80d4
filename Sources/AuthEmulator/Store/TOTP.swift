import Crypto
import Foundation

/// A time-based one-time password generator (RFC 6238 over RFC 4226 HOTP, HMAC-SHA1), the kind Firebase's
/// TOTP second factor and every authenticator app use: 6 digits, a 30-second period, counting from the epoch.
struct TOTP: Sendable, Equatable {
    /// The shared secret key, raw bytes.
    var key: [UInt8]
    var digits = 6
    var periodSeconds: Int64 = 30

    init(key: [UInt8]) {
        self.key = key
    }

    /// A secret given in base32 (RFC 4648, upper case, padding optional), as clients receive it.
    init?(base32 text: String) {
        guard let key = Base32.decode(text), !key.isEmpty else { return nil }
        self.key = key
    }

    /// A fresh 160-bit secret, the size RFC 4226 recommends for SHA-1.
    static func random() -> TOTP {
        var generator = SystemRandomNumberGenerator()
        return TOTP(key: (0..<20).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// The secret in base32 without padding (`sharedSecretKey` on the wire).
    var base32Key: String { Base32.encode(key) }

    /// The time step containing `date`.
    func counter(at date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / Double(periodSeconds)).rounded(.down))
    }

    /// The code shown at `date`.
    func code(at date: Date) -> String { code(counter: counter(at: date)) }

    /// HOTP for `counter`: HMAC-SHA1 of the big-endian counter, dynamically truncated to `digits` digits.
    func code(counter: Int64) -> String {
        var message = UInt64(bitPattern: counter).bigEndian
        let data = withUnsafeBytes(of: &message) { Data($0) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: data, using: SymmetricKey(data: key)))
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let binary = mac[offset..<offset + 4].reduce(UInt32(0)) { ($0 << 8) | UInt32($1) } & 0x7FFF_FFFF
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(binary % modulus)
        return String(repeating: "0", count: digits - value.count) + value
    }

    /// Whether `code` is the code of the step at `date` or of one at most `adjacentIntervals` steps either side.
    func accepts(_ code: String, at date: Date, adjacentIntervals: Int) -> Bool {
        guard code.count == digits, code.allSatisfy({ $0.isASCII && $0.isNumber }) else { return false }
        let now = counter(at: date)
        let window = Int64(max(adjacentIntervals, 0))
        return (now - window...now + window).contains { self.code(counter: $0) == code }
    }

    /// Base32 (RFC 4648 §6), the alphabet authenticator apps read secrets in.
    enum Base32 {
        static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")

        /// Upper-case base32 without `=` padding.
        static func encode(_ bytes: [UInt8]) -> String {
            var result = ""
            var buffer: UInt32 = 0
            var bits = 0
            for byte in bytes {
                buffer = (buffer << 8) | UInt32(byte)
                bits += 8
                while bits >= 5 {
                    bits -= 5
                    result.append(alphabet[Int((buffer >> UInt32(bits)) & 0x1F)])
                }
            }
            if bits > 0 { result.append(alphabet[Int((buffer << UInt32(5 - bits)) & 0x1F)]) }
            return result
        }

        /// Decodes base32, ignoring case, spaces and trailing padding; `nil` for any other character.
        static func decode(_ text: String) -> [UInt8]? {
            var bytes: [UInt8] = []
            var buffer: UInt32 = 0
            var bits = 0
            for character in text.uppercased() where character != " " {
                if character == "=" { break }
                guard let index = alphabet.firstIndex(of: character) else { return nil }
                buffer = (buffer << 5) | UInt32(index)
                bits += 5
                if bits >= 8 {
                    bits -= 8
                    bytes.append(UInt8((buffer >> UInt32(bits)) & 0xFF))
                }
            }
            return bytes
        }
    }
}
