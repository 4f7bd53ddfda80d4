import Crypto
import EmulatorCore
import Foundation

/// How the password hashes of an `accounts:batchCreate` request were made: `hashAlgorithm` and its parameters, sent
/// next to `users` (`passwordHash`, `salt` and `signerKey` are base64url, as firebase-admin sends them).
///
/// Emulator extension: the official emulator stores imported hashes but never matches them. `matches` checks MD5,
/// SHA1, SHA256 and SHA512 (salt then password, `rounds` iterations; also as lowercase hex text, which production
/// takes for MD5), HMAC_MD5/SHA1/SHA256/SHA512 (keyed by `signerKey`, password then salt) and PBKDF_SHA1 /
/// PBKDF2_SHA256 (`rounds` iterations). SCRYPT (Firebase's variant ends in AES-CTR, which swift-crypto's `Crypto` does not expose),
/// STANDARD_SCRYPT and BCRYPT are stored but never match, as in the official emulator.
struct ImportedPasswordHash: Codable, Sendable, Equatable {
    var algorithm: String
    var signerKey: String?
    var rounds: Int64
    /// `SALT_AND_PASSWORD` or `PASSWORD_AND_SALT`; `nil` for the algorithm's own order.
    var passwordHashOrder: String?

    /// The request's hash options, or `nil` when it names no `hashAlgorithm`.
    init?(_ body: RequestBody) throws(APIError) {
        guard let algorithm = try body.string("hashAlgorithm"), !algorithm.isEmpty else { return nil }
        self.algorithm = algorithm
        signerKey = try body.string("signerKey")
        rounds = try body.int64("rounds") ?? 0
        passwordHashOrder = try body.string("passwordHashOrder")
    }

    /// The options as a request names them (`hashAlgorithm`, ...): how an export keeps them per user.
    var requestFields: JSONValue {
        var fields: [String: JSONValue] = ["hashAlgorithm": .string(algorithm), "rounds": .int(rounds)]
        if let signerKey { fields["signerKey"] = .string(signerKey) }
        if let passwordHashOrder { fields["passwordHashOrder"] = .string(passwordHashOrder) }
        return .object(fields)
    }

    /// Whether `password` hashes to `passwordHash` with `salt` under this algorithm.
    func matches(_ password: String, passwordHash: String, salt: String?) -> Bool {
        guard let expected = Data(base64URLEncoded: passwordHash), !expected.isEmpty else { return false }
        var saltBytes = Data()
        if let salt, !salt.isEmpty {
            guard let decoded = Data(base64URLEncoded: salt) else { return false }
            saltBytes = decoded
        }
        let input = Data(password.utf8)
        switch algorithm {
        case "MD5", "HMAC_MD5": return matches(Insecure.MD5.self, password: input, salt: saltBytes, expected: expected)
        case "SHA1", "HMAC_SHA1", "PBKDF_SHA1":
            return matches(Insecure.SHA1.self, password: input, salt: saltBytes, expected: expected)
        case "SHA256", "HMAC_SHA256", "PBKDF2_SHA256":
            return matches(SHA256.self, password: input, salt: saltBytes, expected: expected)
        case "SHA512", "HMAC_SHA512": return matches(SHA512.self, password: input, salt: saltBytes, expected: expected)
        default: return false
        }
    }

    private func matches<Hash: HashFunction>(_: Hash.Type, password: Data, salt: Data, expected: Data) -> Bool {
        if algorithm.hasPrefix("HMAC_") {
            guard let key = signerKey.flatMap({ Data(base64URLEncoded: $0) }) else { return false }
            let message = passwordHashOrder == "SALT_AND_PASSWORD" ? salt + password : password + salt
            return Data(HMAC<Hash>.authenticationCode(for: message, using: SymmetricKey(data: key))) == expected
        }
        if algorithm.hasPrefix("PBKDF") {
            let iterations = Int(min(max(rounds, 1), 120_000))
            return Self.pbkdf2(Hash.self, password: password, salt: salt, iterations: iterations, length: expected.count)
                == expected
        }
        var digest = Data(Hash.hash(data: passwordHashOrder == "PASSWORD_AND_SALT" ? password + salt : salt + password))
        for _ in 1..<min(max(rounds, 1), 8192) { digest = Data(Hash.hash(data: digest)) }
        let hex = digest.map { String(format: "%02x", $0) }.joined()
        return digest == expected || Data(hex.utf8) == expected
    }

    /// PBKDF2 (RFC 8018) with HMAC over `Hash`.
    private static func pbkdf2<Hash: HashFunction>(
        _: Hash.Type, password: Data, salt: Data, iterations: Int, length: Int
    ) -> Data {
        let keyed = HMAC<Hash>(key: SymmetricKey(data: password))
        var output = Data()
        var blockIndex: UInt32 = 1
        while output.count < length {
            var mac = keyed
            mac.update(data: salt + withUnsafeBytes(of: blockIndex.bigEndian) { Data($0) })
            var block = Data(mac.finalize())
            var sum = block
            for _ in 1..<max(iterations, 1) {
                var next = keyed
                next.update(data: block)
                block = Data(next.finalize())
                for index in sum.indices { sum[index] ^= block[index] }
            }
            output += sum
            blockIndex += 1
        }
        return output.prefix(length)
    }
}
