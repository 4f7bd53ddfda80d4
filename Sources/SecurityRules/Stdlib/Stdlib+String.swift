/// rules.String, as the official engine (Java strings) evaluates it: sizes, indexes and ranges count UTF-16
/// code units (`'😀'.size() == 2`), `lower()` and `upper()` change ASCII letters only; comparisons are by
/// code point. Half of a surrogate pair taken alone reads as U+FFFD (a Swift string holds no lone
/// surrogate).
extension Stdlib {
    /// Methods of rules.String.
    static let stringMethods: [String: Method<String>] = [
        "size": Method { string, _ in .int(Int64(string.utf16.count)) },
        "lower": Method { string, _ in .string(asciiCase(string, from: UInt8(ascii: "A"), to: UInt8(ascii: "Z"))) },
        "upper": Method { string, _ in .string(asciiCase(string, from: UInt8(ascii: "a"), to: UInt8(ascii: "z"))) },
        // "Leading and trailing spaces removed": as Java's String.trim, every code point up to U+0020.
        "trim": Method { string, _ in
            let scalars = string.unicodeScalars
            guard let first = scalars.firstIndex(where: { $0.value > 0x20 }),
                let last = scalars.lastIndex(where: { $0.value > 0x20 })
            else { return .string("") }
            return .string(String(scalars[first...last]))
        },
        "toUtf8": Method { string, _ in .bytes(Array(string.utf8)) },
        "matches": Method(1...1) { string, arguments throws(RuleError) in
            .bool(try RulesRegex.compile(try arguments.string(0)).matchesWhole(string))
        },
        "split": Method(1...1) { string, arguments throws(RuleError) in
            .list(try RulesRegex.compile(try arguments.string(0)).split(string).map(RuleValue.string))
        },
        "replace": Method(2...2) { string, arguments throws(RuleError) in
            let pattern = try RulesRegex.compile(try arguments.string(0))
            return .string(try pattern.replaceAll(in: string, with: try arguments.string(1)))
        },
    ]

    /// `string[position]`: the UTF-16 code unit at `position` as a string.
    static func character(of string: String, at position: Int64) throws(RuleError) -> String {
        let units = Array(string.utf16)
        let index = try checkedIndex(position, count: units.count)
        return String(decoding: units[index...index], as: UTF16.self)
    }

    /// `string` with the ASCII letters from `from` through `to` moved to the other case.
    private static func asciiCase(_ string: String, from: UInt8, to: UInt8) -> String {
        guard string.utf8.contains(where: { (from...to).contains($0) }) else { return string }
        return String(decoding: string.utf8.map { (from...to).contains($0) ? $0 ^ 0x20 : $0 }, as: UTF8.self)
    }
}
