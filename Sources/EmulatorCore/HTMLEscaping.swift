extension Sequence<Unicode.Scalar> {
    /// The text with `& < > " '` as character references: safe in HTML element content and in quoted
    /// attributes (the emulators' coverage reports and pages).
    public func htmlEscaped() -> String {
        var html = String.UnicodeScalarView()
        for scalar in self {
            switch scalar {
            case "&": html.append(contentsOf: "&amp;".unicodeScalars)
            case "<": html.append(contentsOf: "&lt;".unicodeScalars)
            case ">": html.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": html.append(contentsOf: "&quot;".unicodeScalars)
            case "'": html.append(contentsOf: "&#39;".unicodeScalars)
            default: html.append(scalar)
            }
        }
        return String(html)
    }
}

extension StringProtocol {
    /// The text with `& < > " '` as character references (see `Sequence<Unicode.Scalar>.htmlEscaped()`).
    public func htmlEscaped() -> String {
        unicodeScalars.htmlEscaped()
    }
}
