extension StringMethod {
    /// Calls the method on `string`; strings are compared as UTF-16 code units, as JavaScript and Java do.
    func apply(to string: String, _ arguments: [DatabaseRuleValue]) throws(RuleEvaluationError) -> DatabaseRuleValue {
        var texts: [String] = []
        for argument in arguments {
            guard case .string(let text) = argument else {
                throw RuleEvaluationError("\(rawValue)() takes strings, not a \(argument.typeName).")
            }
            texts.append(text)
        }
        switch self {
        case .contains: return .bool(Self.firstRange(of: Array(texts[0].utf16), in: Array(string.utf16), from: 0) != nil)
        case .beginsWith: return .bool(string.utf16.starts(with: texts[0].utf16))
        case .endsWith: return .bool(string.utf16.reversed().starts(with: texts[0].utf16.reversed()))
        case .replace: return .string(Self.replacing(texts[0], with: texts[1], in: string))
        case .toLowerCase: return .string(string.lowercased())
        case .toUpperCase: return .string(string.uppercased())
        }
    }

    /// `string` with every occurrence of `target` replaced, left to right (an empty target changes nothing).
    private static func replacing(_ target: String, with replacement: String, in string: String) -> String {
        let needle = Array(target.utf16)
        guard !needle.isEmpty else { return string }
        let haystack = Array(string.utf16)
        var result: [UInt16] = []
        var start = 0
        while let match = firstRange(of: needle, in: haystack, from: start) {
            result.append(contentsOf: haystack[start..<match])
            result.append(contentsOf: replacement.utf16)
            start = match + needle.count
        }
        result.append(contentsOf: haystack[start...])
        return String(decoding: result, as: UTF16.self)
    }

    /// Where `needle` first occurs in `haystack` at or after `start`.
    private static func firstRange(of needle: [UInt16], in haystack: [UInt16], from start: Int) -> Int? {
        guard needle.count <= haystack.count - start else { return nil }
        if needle.isEmpty { return start }
        for offset in start...(haystack.count - needle.count) where haystack[offset] == needle[0] {
            if haystack[offset..<(offset + needle.count)].elementsEqual(needle) { return offset }
        }
        return nil
    }
}
