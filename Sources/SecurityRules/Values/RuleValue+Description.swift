extension RuleValue: CustomStringConvertible {
    /// The value as rules source would write it, for explanations, `debug()` and messages: `null`, `true`,
    /// `1`, `2.0`, `'text'`, `b'\x00'`, `[1, 2]`, `{'a': 1}` (keys sorted), `[1, 2].toSet()`, `/a/b`,
    /// RFC 3339 timestamps, durations in seconds (`1.5s`), `latlng.value(1.0, 2.0)`, `{...}.diff({...})`.
    public var description: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .int(let value): return String(value)
        case .float(let value): return Self.floatText(value)
        case .string(let value): return Self.quoted(value)
        case .bytes(let value): return Self.bytesLiteral(value)
        case .list(let values): return "[" + values.map(\.description).joined(separator: ", ") + "]"
        case .map(let map): return Self.mapLiteral(map)
        case .set(let set): return RuleValue.list(set.elements).description + ".toSet()"
        case .path(let path): return path.description
        case .timestamp(let time): return time.rfc3339
        case .duration(let duration): return duration.secondsText
        case .latlng(let point): return "latlng.value(\(Self.floatText(point.latitude)), \(Self.floatText(point.longitude)))"
        case .mapDiff(let diff): return Self.mapLiteral(diff.left) + ".diff(" + Self.mapLiteral(diff.right) + ")"
        }
    }

    /// A float as `string()` prints it, which is Java's `Double.toString`: plain decimals with at least one
    /// fractional digit for 10⁻³ ≤ |x| < 10⁷ (`2.0`, `0.001`), otherwise `d.dddE±n` (`1.0E7`, `1.0E-4`);
    /// `NaN`, `Infinity`, `-Infinity`. Digits are the shortest that round-trip.
    static func floatText(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        if value == 0 { return value.sign == .minus ? "-0.0" : "0.0" }
        let magnitude = value.magnitude
        let sign = value < 0 ? "-" : ""
        // Swift prints plain decimals with a fractional digit across this whole range.
        if magnitude >= 1e-3, magnitude < 1e7 { return value.description }
        let (digits, exponent) = decimalDigits(magnitude)
        let fraction = digits.count > 1 ? String(digits.dropFirst()) : "0"
        return "\(sign)\(digits.first!).\(fraction)E\(exponent)"
    }

    /// The shortest round-tripping significant digits of a positive finite `value` (no leading or
    /// trailing zeros) and the decimal exponent of the first one.
    private static func decimalDigits(_ value: Double) -> (digits: String, exponent: Int) {
        let text = value.description
        let parts = text.split(separator: "e", maxSplits: 1)
        let mantissa = parts[0]
        let exponent = parts.count > 1 ? Int(parts[1])! : 0
        let pointIndex = mantissa.firstIndex(of: ".")
        let integerLength = pointIndex.map { mantissa.distance(from: mantissa.startIndex, to: $0) } ?? mantissa.count
        var digits = Array(mantissa.filter { $0 != "." })
        var firstExponent = integerLength - 1 + exponent
        while digits.first == "0", digits.count > 1 {
            digits.removeFirst()
            firstExponent -= 1
        }
        while digits.last == "0", digits.count > 1 { digits.removeLast() }
        return (String(digits), firstExponent)
    }

    /// `text` in single quotes with `\\`, `\'` and control characters escaped.
    static func quoted(_ text: String) -> String {
        var result = "'"
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\\\"
            case "'": result += "\\'"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: result += "\\x" + hex(UInt8(scalar.value))
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "'"
    }

    private static func bytesLiteral(_ bytes: [UInt8]) -> String {
        var result = "b'"
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\\"): result += "\\\\"
            case UInt8(ascii: "'"): result += "\\'"
            case 0x20..<0x7F: result.unicodeScalars.append(Unicode.Scalar(byte))
            default: result += "\\x" + hex(byte)
            }
        }
        return result + "'"
    }

    private static func mapLiteral(_ map: [String: RuleValue]) -> String {
        let entries = map.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        return "{" + entries.map { "\(quoted($0.key)): \($0.value)" }.joined(separator: ", ") + "}"
    }

    /// Two uppercase hexadecimal digits.
    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF".unicodeScalars)
        return String(String.UnicodeScalarView([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]]))
    }
}

extension RuleTimestamp {
    /// RFC 3339 in UTC with 0, 3, 6 or 9 fractional digits, as Firestore's JSON writes timestamps:
    /// `2024-01-02T03:04:05Z`, `2024-01-02T03:04:05.120Z`.
    var rfc3339: String {
        let civil = self.civil
        func pad(_ value: Int64, _ width: Int) -> String {
            let digits = String(value.magnitude)
            return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let date = "\(pad(civil.year, 4))-\(pad(civil.month, 2))-\(pad(civil.day, 2))"
        let time = "\(pad(civil.hour, 2)):\(pad(civil.minute, 2)):\(pad(civil.second, 2))"
        return "\(date)T\(time)\(RuleDuration.fraction(nanos))Z"
    }
}

extension RuleDuration {
    /// Seconds with 0, 3, 6 or 9 fractional digits and an `s`, as protobuf's JSON writes durations:
    /// `3600s`, `1.500s`, `-0.000000001s`.
    var secondsText: String {
        let negative = seconds < 0 || nanos < 0
        return (negative ? "-" : "") + String(seconds.magnitude) + Self.fraction(Int32(nanos.magnitude)) + "s"
    }

    /// `.ddd`, `.dddddd` or `.ddddddddd` for `nanos` (0 ..< 10⁹), the fewest groups that are exact; empty
    /// for zero.
    static func fraction(_ nanos: Int32) -> String {
        guard nanos != 0 else { return "" }
        var digits = String(nanos)
        digits = String(repeating: "0", count: 9 - digits.count) + digits
        while digits.hasSuffix("000") { digits.removeLast(3) }
        return "." + digits
    }
}
