/// rules.String. Sizes, indexes and ranges count Unicode code points; comparisons are by code point.
extension Stdlib {
    /// Methods of rules.String.
    static let stringMethods: [String: Method<String>] = [
        "size": Method { string, _ in .int(Int64(string.unicodeScalars.count)) },
        "lower": Method { string, _ in .string(string.lowercased()) },
        "upper": Method { string, _ in .string(string.uppercased()) },
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

    /// `string[position]`: the code point at `position` as a string.
    static func character(of string: String, at position: Int64) throws(RuleError) -> String {
        let scalars = string.unicodeScalars
        guard position >= 0, let index = scalars.index(scalars.startIndex, offsetBy: Int(position), limitedBy: scalars.endIndex),
            index != scalars.endIndex
        else {
            throw RuleError(.outOfRange, "Index \(position) out of range for size \(scalars.count).")
        }
        return String(scalars[index])
    }
}
