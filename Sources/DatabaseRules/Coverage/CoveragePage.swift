import EmulatorCore

/// The rules coverage page: the rules file with each rule colored by how it evaluated and its counts beside
/// its line, then a table of every rule. One self-contained HTML document (inline styles, no scripts).
struct CoveragePage {
    /// The rules file's text.
    let source: String
    /// Every rule with its counts, in file order.
    let rules: [(site: RulesCoverage.Site, counts: RulesCoverage.Counts)]

    /// How a rule has fared; the raw value is its CSS class.
    enum Status: String, CaseIterable {
        /// Evaluated to `true` at least once, never failed.
        case covered
        /// Only ever `false`.
        case denied
        /// Failed at least once.
        case failed
        /// Never evaluated.
        case unused

        init(_ counts: RulesCoverage.Counts) {
            self =
                if counts.evaluations == 0 { .unused }
                else if counts.errors > 0 { .failed }
                else if counts.true > 0 { .covered }
                else { .denied }
        }

        var legend: String {
            switch self {
            case .covered: "true at least once"
            case .denied: "only ever false"
            case .failed: "failed at least once"
            case .unused: "never evaluated"
            }
        }
    }

    func render() -> String {
        let evaluated = rules.count { $0.counts.evaluations > 0 }
        let failed = rules.count { $0.counts.errors > 0 }
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>Realtime Database rules coverage</title>
            <style>\(Self.style)</style></head><body>
            <h1>Realtime Database rules coverage</h1>
            <p>\(evaluated) of \(rules.count) rules evaluated, \(failed) with errors. \
            Counts since the rules were loaded.</p>
            <p class="legend">
            """
        for status in Status.allCases {
            html += "<span class=\"rule \(status.rawValue)\">\(status.legend)</span> "
        }
        html += "</p>\n<h2>database.rules.json</h2>\n<table class=\"source\">\n"
        html += sourceRows()
        html += "</table>\n<h2>Rules</h2>\n<table class=\"rules\">\n"
        html += "<tr><th>Line</th><th>Path</th><th>Rule</th><th>Expression</th>"
        html += "<th>Evaluations</th><th>True</th><th>False</th><th>Errors</th></tr>\n"
        for (site, counts) in rules {
            html += "<tr class=\"\(Status(counts).rawValue)\"><td>\(site.location)</td>"
            html += "<td><code>\(site.path.htmlEscaped())</code></td><td><code>\(site.kind.rawValue)</code></td>"
            html += "<td><code>\(site.expression.htmlEscaped())</code></td><td>\(counts.evaluations)</td>"
            html += "<td>\(counts.true)</td><td>\(counts.false)</td><td>\(counts.errors)</td></tr>\n"
        }
        html += "</table>\n</body></html>\n"
        return html
    }

    /// One row per line of the file: its number, the counts of the rules on it, and its text with each rule
    /// wrapped in a colored span.
    private func sourceRows() -> String {
        let rulesByLine = Dictionary(grouping: rules, by: \.site.location.line)
        var html = ""
        let lines = source.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, text) in lines.enumerated() {
            var line = Array(text)
            if line.last == "\r" { line.removeLast() }
            let onLine = rulesByLine[index + 1] ?? []
            html += "<tr><td class=\"number\">\(index + 1)</td><td class=\"counts\">"
            html += onLine.map { Self.badge($0.site, $0.counts) }.joined(separator: " ")
            html += "</td><td class=\"code\">\(Self.code(line, rules: onLine))</td></tr>\n"
        }
        return html
    }

    /// A line's text, each rule on it (a span of its columns) wrapped in a span colored by its status.
    private static func code(_ line: [Unicode.Scalar], rules: [(site: RulesCoverage.Site, counts: RulesCoverage.Counts)]) -> String {
        var html = ""
        var column = 0
        for (site, counts) in rules {
            let start = site.location.column - 1
            guard start >= column, start < line.count else { continue }
            let end = min(start + site.length, line.count)
            html += line[column..<start].htmlEscaped()
            html += "<span class=\"rule \(Status(counts).rawValue)\" title=\"\(summary(site, counts).htmlEscaped())\">"
            html += line[start..<end].htmlEscaped() + "</span>"
            column = end
        }
        return html + line[column...].htmlEscaped()
    }

    /// `.write ×5: 3 true, 2 false` (zeros left out), colored by the rule's status.
    private static func badge(_ site: RulesCoverage.Site, _ counts: RulesCoverage.Counts) -> String {
        let parts = [(counts.true, "true"), (counts.false, "false"), (counts.errors, "errors")]
            .filter { $0.0 > 0 }
            .map { "\($0.0) \($0.1)" }
        let tally = parts.isEmpty ? "" : ": " + parts.joined(separator: ", ")
        let text = "\(site.kind.rawValue) ×\(counts.evaluations)\(tally)"
        return "<span class=\"badge \(Status(counts).rawValue)\" title=\"\(summary(site, counts).htmlEscaped())\">\(text)</span>"
    }

    /// `/presence/$uid .write: 5 evaluations, 3 true, 2 false, 0 errors`.
    private static func summary(_ site: RulesCoverage.Site, _ counts: RulesCoverage.Counts) -> String {
        "\(site.path) \(site.kind.rawValue): \(counts.evaluations) evaluations, \(counts.true) true, "
            + "\(counts.false) false, \(counts.errors) errors"
    }

    private static let style = """
        body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
        table { border-collapse: collapse; }
        .source td { padding: 0 0.6em; vertical-align: top; }
        .source .number { color: #999; text-align: right; user-select: none; }
        .source .counts { white-space: nowrap; font-size: 0.85em; }
        .source .code, code { font-family: ui-monospace, monospace; white-space: pre; }
        .rules th, .rules td { border: 1px solid #ddd; padding: 0.2em 0.6em; text-align: left; }
        .rule, .badge { border-radius: 3px; padding: 0 0.2em; }
        .covered { background: #d4f4d4; }
        .denied { background: #f8d0d0; }
        .failed { background: #fde0b0; }
        .unused { background: #e4e4e4; }
        """
}
