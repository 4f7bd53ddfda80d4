/// A regular expression literal (`/pattern/flags`), the argument of `matches`: compiled once when the rules
/// are. It matches when any part of the string does; `^` (only as the first character) and `$` (only as
/// the last) anchor it, and `i` is the only flag, as the Realtime Database documents.
struct RuleRegex: @unchecked Sendable {
    // @unchecked: `Regex` is an immutable value whose lazily compiled program is published with an atomic
    // compare-and-swap inside the standard library, so one instance may be shared between threads.
    private let regex: Regex<AnyRegexOutput>

    /// Compiles `pattern` with `flags`; the error's text explains what is not supported.
    init(pattern: String, flags: String) throws(RuleRegexError) {
        for flag in flags.unicodeScalars where flag != "i" {
            throw RuleRegexError(reason: "Unsupported regular expression flag '\(flag)': only 'i' is supported.")
        }
        if let misplaced = Self.misplacedAnchor(in: pattern) {
            throw RuleRegexError(reason: misplaced)
        }
        let compiled: Regex<AnyRegexOutput>
        do {
            compiled = try Regex(pattern)
        } catch {
            throw RuleRegexError(reason: "Invalid regular expression /\(pattern)/: \(error)")
        }
        var regex = compiled.matchingSemantics(.unicodeScalar)
        if flags.contains("i") { regex = regex.ignoresCase() }
        self.regex = regex
    }

    /// Whether some part of `string` matches.
    func matches(_ string: String) -> Bool {
        string.firstMatch(of: regex) != nil
    }

    /// A description of a `^` that is not first, a `$` that is not last, or an empty alternative (`(a|)`,
    /// `a||b`: the live service refuses those) outside brackets, if any.
    private static func misplacedAnchor(in pattern: String) -> String? {
        let scalars = Array(pattern.unicodeScalars)
        var index = 0
        var inClass = false
        while index < scalars.count {
            let scalar = scalars[index]
            switch scalar {
            case "\\": index += 1
            case "[" where !inClass: inClass = true
            case "]" where inClass: inClass = false
            case "|" where !inClass:
                let before = index > 0 ? scalars[index - 1] : "("
                let after = index + 1 < scalars.count ? scalars[index + 1] : ")"
                let escaped = index > 1 && scalars[index - 2] == "\\"
                if (before == "(" || before == "|" || before == "^") && !escaped || after == ")" || after == "|" || after == "$" {
                    return "Empty alternatives ('|' with nothing on one side) are not supported in regular expressions."
                }
            case "^" where !inClass && index != 0:
                return "'^' can only be used as the first character of a regular expression."
            case "$" where !inClass && index != scalars.count - 1:
                return "'$' can only be used as the last character of a regular expression."
            default: break
            }
            index += 1
        }
        return nil
    }
}

/// Why a regular expression literal was refused.
struct RuleRegexError: Error {
    var reason: String
}
