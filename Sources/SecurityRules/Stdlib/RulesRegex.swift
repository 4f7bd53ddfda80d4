import Synchronization

/// A regular expression as the rules language takes them: Google RE2 syntax, matched code point by code
/// point, `\d \s \w \b` and POSIX classes ASCII-only as in RE2. Syntax RE2 rejects (backreferences,
/// lookaround, atomic groups, possessive quantifiers, `\Z`, ...) is an error here too rather than a
/// Swift extension that would silently work.
///
/// `split` and `replace` follow RE2/J, the Java port a Java runtime would use: `split` drops trailing empty
/// strings, `replace` expands `$n` / `${name}` group references and `\` escapes in the substitution.
struct RulesRegex: @unchecked Sendable {
    // @unchecked: `Regex` is an immutable value whose lazily compiled program is published with an atomic
    // compare-and-swap inside the standard library, so one instance may be shared between threads.
    private let regex: Regex<AnyRegexOutput>

    /// Compiled patterns by source text, so rules evaluated many times compile each pattern once.
    private static let cache = Mutex<[String: Result<RulesRegex, RuleError>]>([:])
    private static let cacheLimit = 512

    private init(_ regex: Regex<AnyRegexOutput>) { self.regex = regex }

    /// The compiled `pattern`, or an error describing why it is not a valid RE2 expression.
    static func compile(_ pattern: String) throws(RuleError) -> RulesRegex {
        let cached = cache.withLock { $0[pattern] }
        let result = cached ?? build(pattern)
        if cached == nil {
            cache.withLock { cache in
                if cache.count >= cacheLimit { cache.removeAll(keepingCapacity: true) }
                cache[pattern] = result
            }
        }
        return try result.get()
    }

    private static func build(_ pattern: String) -> Result<RulesRegex, RuleError> {
        if let unsupported = unsupportedSyntax(in: pattern) {
            return .failure(RuleError(.invalidArgument, "Invalid regular expression '\(pattern)': \(unsupported) is not supported (RE2 syntax)."))
        }
        do {
            let regex = try Regex(expandingShortProperties(pattern))
                .matchingSemantics(.unicodeScalar)
                .asciiOnlyDigits()
                .asciiOnlyWhitespace()
                .asciiOnlyWordCharacters()
                .wordBoundaryKind(.simple)
            return .success(RulesRegex(regex))
        } catch {
            return .failure(RuleError(.invalidArgument, "Invalid regular expression '\(pattern)': \(error)"))
        }
    }

    /// Whether the whole of `string` matches (`matches()` is anchored at both ends).
    func matchesWhole(_ string: String) -> Bool {
        string.wholeMatch(of: regex) != nil
    }

    /// `string` split around each match: a zero-width match at the start makes no leading empty string,
    /// trailing empty strings are dropped, and with no match the result is `[string]`.
    func split(_ string: String) -> [String] {
        let scalars = string.unicodeScalars
        var parts: [String] = []
        var start = scalars.startIndex
        var matched = false
        for match in string.matches(of: regex) {
            if match.range.isEmpty, match.range.lowerBound == scalars.startIndex { continue }
            matched = true
            parts.append(String(scalars[start..<match.range.lowerBound]))
            start = match.range.upperBound
        }
        guard matched else { return [string] }
        parts.append(String(scalars[start...]))
        while parts.last?.isEmpty == true { parts.removeLast() }
        return parts
    }

    /// `string` with every match replaced by `replacement`, in which `$n` and `${name}` insert a group's
    /// text and `\` makes the next character literal.
    func replaceAll(in string: String, with replacement: String) throws(RuleError) -> String {
        let scalars = string.unicodeScalars
        var result = String.UnicodeScalarView()
        var start = scalars.startIndex
        for match in string.matches(of: regex) {
            result.append(contentsOf: scalars[start..<match.range.lowerBound])
            try expand(replacement, match.output, into: &result)
            start = match.range.upperBound
        }
        result.append(contentsOf: scalars[start...])
        return String(result)
    }

    private func expand(
        _ replacement: String, _ groups: AnyRegexOutput, into result: inout String.UnicodeScalarView
    ) throws(RuleError) {
        let template = Array(replacement.unicodeScalars)
        func text(_ group: AnyRegexOutput.Element?) -> Substring.UnicodeScalarView {
            group?.substring?.unicodeScalars ?? Substring().unicodeScalars
        }
        var index = 0
        while index < template.count {
            let scalar = template[index]
            index += 1
            switch scalar {
            case "\\":
                guard index < template.count else { throw RuleError(.invalidArgument, "Invalid replacement '\(replacement)': trailing \\.") }
                result.append(template[index])
                index += 1
            case "$" where index < template.count && template[index] == "{":
                guard let close = template[index...].firstIndex(of: "}") else {
                    throw RuleError(.invalidArgument, "Invalid replacement '\(replacement)': unterminated group name.")
                }
                let name = String(String.UnicodeScalarView(template[(index + 1)..<close]))
                guard let group = groups[name] else { throw RuleError(.invalidArgument, "Invalid replacement '\(replacement)': no group named '\(name)'.") }
                result.append(contentsOf: text(group))
                index = close + 1
            case "$":
                func digit(_ index: Int) -> Int? {
                    index < template.count && ("0"..."9").contains(template[index]) ? Int(template[index].value) - 48 : nil
                }
                guard var number = digit(index) else {
                    throw RuleError(.invalidArgument, "Invalid replacement '\(replacement)': illegal group reference.")
                }
                index += 1
                // Further digits extend the number while it still names a group, as Java does.
                while let next = digit(index), number * 10 + next < groups.count {
                    number = number * 10 + next
                    index += 1
                }
                guard number < groups.count else { throw RuleError(.invalidArgument, "Invalid replacement '\(replacement)': no group \(number).") }
                result.append(contentsOf: text(groups[number]))
            default:
                result.append(scalar)
            }
        }
    }
}

extension RulesRegex {
    /// The first construct in `pattern` that RE2 does not support, described; `nil` if there is none.
    /// (Plain syntax errors are left to the compiler.)
    static func unsupportedSyntax(in pattern: String) -> String? {
        let p = Array(pattern.unicodeScalars)
        func at(_ index: Int) -> Unicode.Scalar? { index < p.count ? p[index] : nil }
        func isDigit(_ scalar: Unicode.Scalar?) -> Bool { scalar.map { ("0"..."9").contains($0) } ?? false }
        var index = 0
        var inClass = false
        var afterQuantifier = false
        while index < p.count {
            let scalar = p[index]
            if scalar == "\\" {
                let escaped = at(index + 1)
                if escaped == "Q" {  // \Q...\E quotes literally
                    index += 2
                    while index < p.count, !(p[index] == "\\" && at(index + 1) == "E") { index += 1 }
                    index += 2
                    afterQuantifier = false
                    continue
                }
                if !inClass, let escaped {
                    if ("1"..."9").contains(escaped), !isDigit(at(index + 2)) { return "the backreference \\\(escaped)" }
                    if "kgGZXRKhHVC".unicodeScalars.contains(escaped) { return "the escape \\\(escaped)" }
                }
                index += 2
                afterQuantifier = false
                continue
            }
            if inClass {
                if scalar == "[", at(index + 1) == ":", let end = (index + 2..<p.count).first(where: { p[$0] == ":" && at($0 + 1) == "]" }) {
                    index = end + 2
                } else {
                    if scalar == "]" { inClass = false }
                    index += 1
                }
                continue
            }
            switch scalar {
            case "[":
                inClass = true
                index += 1
                if at(index) == "^" { index += 1 }
                if at(index) == "]" { index += 1 }  // a leading ] is literal
                afterQuantifier = false
                continue
            case "(" where at(index + 1) == "?":
                if let unsupported = unsupportedGroup(Array(p[(index + 2)...])) { return unsupported }
            case "*", "+", "?":
                if afterQuantifier {
                    if scalar == "+" { return "the possessive quantifier \(p[index - 1])+" }
                    if scalar != "?" { return "the repeated quantifier \(p[index - 1])\(scalar)" }
                    afterQuantifier = false  // lazy modifier
                    index += 1
                    continue
                }
                afterQuantifier = true
                index += 1
                continue
            case "{":
                if let end = (index + 1..<p.count).first(where: { p[$0] == "}" }), isRepetition(p[(index + 1)..<end]) {
                    if afterQuantifier { return "a repeated quantifier" }
                    afterQuantifier = true
                    index = end + 1
                    continue
                }
            default: break
            }
            afterQuantifier = false
            index += 1
        }
        return nil
    }

    /// `pattern` with RE2's one-letter Unicode classes `\pL` / `\PL` written `\p{L}` / `\P{L}`, the only
    /// form Swift accepts.
    static func expandingShortProperties(_ pattern: String) -> String {
        var result = String.UnicodeScalarView()
        var scalars = pattern.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            result.append(scalar)
            guard scalar == "\\", let escaped = scalars.next() else { continue }
            result.append(escaped)
            guard escaped == "p" || escaped == "P", let name = scalars.next() else { continue }
            result.append(contentsOf: name == "{" ? ["{"] : ["{", name, "}"])
        }
        return String(result)
    }

    /// For the text after `(?`: a description of the construct if RE2 does not support it.
    private static func unsupportedGroup(_ rest: [Unicode.Scalar]) -> String? {
        let text = String(String.UnicodeScalarView(rest.prefix(3)))
        for (prefix, name) in [("<=", "lookbehind"), ("<!", "lookbehind"), ("=", "lookahead"), ("!", "lookahead"),
                               (">", "an atomic group"), ("#", "a comment group"), ("|", "a branch reset group"),
                               ("P=", "a named backreference"), ("P>", "a recursive call"), ("'", "a quoted group name"),
                               ("(", "a conditional"), ("&", "a recursive call"), ("R", "a recursive call"), ("C", "a callout")]
        where text.hasPrefix(prefix) {
            return "(?\(prefix) (\(name))"
        }
        if text.hasPrefix("P<") || text.hasPrefix("<") { return nil }
        // Flags: RE2 knows i, m, s and U.
        let flags = rest.prefix { $0 != ")" && $0 != ":" }
        if let flag = flags.first(where: { !"imsU-".unicodeScalars.contains($0) }) {
            return isRecursion(flag) ? "a recursive call" : "the flag \(flag)"
        }
        return nil
    }

    /// Whether the text between `{` and `}` is a repetition count: `n`, `n,` or `n,m`.
    private static func isRepetition(_ text: ArraySlice<Unicode.Scalar>) -> Bool {
        let parts = text.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false)
        func isNumber(_ part: ArraySlice<Unicode.Scalar>) -> Bool { part.allSatisfy { ("0"..."9").contains($0) } }
        return !parts[0].isEmpty && isNumber(parts[0]) && (parts.count == 1 || isNumber(parts[1]))
    }

    private static func isRecursion(_ scalar: Unicode.Scalar) -> Bool { "0123456789+".unicodeScalars.contains(scalar) }
}
