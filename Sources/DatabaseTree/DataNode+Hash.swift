import Crypto
import Foundation

/// The node hash of the wire protocol: what a listen's and a transaction's `h` carry (and a fine REST ETag).
///
/// The hash is the standard base64 of the SHA-1 of a canonical text, or `""` for the empty node:
/// - a leaf: `priority:<p>:` when it has a priority, then `boolean:true`, `number:<16 hex digits>` or
///   `string:<text>`;
/// - a node with children: `priority:<p>:` when it has a priority, then `:<key>:<child hash>` for each child
///   in priority order (priority, ties by key);
/// - `<p>` is `number:<16 hex digits>` or `string:<text>`; numbers are the big-endian IEEE-754 bits of the
///   double in lowercase hex.
///
/// The JavaScript SDK derives those bits arithmetically, and for a few numbers its digits differ from the
/// real bits (the largest double below a power of two, like 2^53 − 1, and numbers under about 1e-9 near a
/// power of two); `matchesHash(_:)` accepts either spelling so transactions of such values do not fail.
/// Cost: linear in the size of the tree, plus sorting each node's children.
extension DataNode {
    /// The node hash (real IEEE-754 bits for numbers, as the Android, iOS and Admin SDKs compute it).
    package var hash: String { hash(numbers: .exact) }

    /// Whether `hash` is this node's hash as any SDK computes it (see the JavaScript SDK note above).
    package func matchesHash(_ hash: String) -> Bool {
        hash == self.hash(numbers: .exact) || hash == self.hash(numbers: .javaScript)
    }

    /// How numbers are spelt in the canonical text.
    enum NumberSpelling {
        /// The double's bits.
        case exact
        /// The JavaScript SDK's `doubleToIEEE754String`.
        case javaScript
    }

    /// The hash, numbers spelt as `numbers` says.
    func hash(numbers: NumberSpelling) -> String {
        var text: [UInt8] = []
        if let priority {
            text += "priority:".utf8
            Self.appendHashText(priority, numbers: numbers, to: &text)
            text.append(UInt8(ascii: ":"))
        }
        switch content {
        case .leaf(let value):
            Self.appendHashText(value, numbers: numbers, to: &text)
        case .children:
            for entry in DatabaseQuery.all.selectedEntries(from: self, sorted: true) {
                let childHash = entry.node.hash(numbers: numbers)
                guard !childHash.isEmpty else { continue }
                text.append(UInt8(ascii: ":"))
                text += entry.key.utf8
                text.append(UInt8(ascii: ":"))
                text += childHash.utf8
            }
        }
        if text.isEmpty { return "" }
        return Data(Insecure.SHA1.hash(data: text)).base64EncodedString()
    }

    /// Appends `boolean:…`, `number:…` or `string:…`.
    private static func appendHashText(_ value: LeafValue, numbers: NumberSpelling, to text: inout [UInt8]) {
        switch value {
        case .bool(let flag): text += (flag ? "boolean:true" : "boolean:false").utf8
        case .string(let string):
            text += "string:".utf8
            text += string.utf8
        case .number(let number):
            let bits = numbers == .exact ? number.bitPattern : javaScriptBits(number)
            text += "number:".utf8
            for shift in stride(from: 60, through: 0, by: -4) {
                let digit = UInt8(truncatingIfNeeded: bits >> UInt64(shift)) & 0xF
                text.append(digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10)
            }
        }
    }

    /// The bits the JavaScript SDK's `doubleToIEEE754String` produces: the exponent from
    /// `floor(log(v) / LN2)` and the fraction from `round(v * 2^(52 - e) - 2^52)`, which is off by one ulp
    /// of the exponent for some numbers (the fraction then wraps as JavaScript's `%` and `floor` make it).
    static func javaScriptBits(_ number: Double) -> UInt64 {
        if number == 0 { return number.sign == .minus ? 1 << 63 : 0 }
        let sign: UInt64 = number < 0 ? 1 << 63 : 0
        let magnitude = abs(number)
        let exponent: Int64
        let fraction: Double
        if magnitude >= 0x1p-1022 {
            let power = min((log(magnitude) / 0.6931471805599453).rounded(.down), 1023)
            exponent = Int64(power) + 1023
            fraction = javaScriptRound(magnitude * powerOfTwo(52 - Int(power)) - 0x1p52)
        } else {
            exponent = 0
            fraction = javaScriptRound(magnitude / 0x1p-1074)
        }
        let fractionBits = fraction.isFinite ? UInt64(bitPattern: Int64(fraction)) & (1 << 52 - 1) : 0
        return sign | (UInt64(bitPattern: exponent) & 0x7FF) << 52 | fractionBits
    }

    /// 2^n as JavaScript's `Math.pow(2, n)`: infinity above the largest double, 0 below the smallest.
    private static func powerOfTwo(_ n: Int) -> Double {
        if n > 1023 { return .infinity }
        if n < -1074 { return 0 }
        return Double(sign: .plus, exponent: n, significand: 1)
    }

    /// JavaScript's `Math.round`: to the nearest integer, halves up.
    private static func javaScriptRound(_ value: Double) -> Double {
        guard value.isFinite else { return value }
        let floor = value.rounded(.down)
        return value - floor >= 0.5 ? floor + 1 : floor
    }
}
