import EmulatorCore

extension RulesCoverageReport {
    /// The `:ruleCoverage.html` page: self-contained (inline CSS, no script), each rules file with every
    /// reported expression highlighted by what it did (green: evaluated to `true` or to a non-boolean value
    /// at least once; red: evaluated, but only to `false` or to errors; grey: never evaluated), and its counts
    /// in a tooltip. Production's page draws the same spans from the JSON with a script.
    public var html: String {
        var page = HTMLPage()
        page.append(
            """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <title>Rules coverage report</title>
            <style>
            body { font: 14px/1.5 system-ui, sans-serif; margin: 2em; color: #1f2328; }
            pre { font: 13px/1.7 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: #f6f8fa;
                  padding: 1em; overflow-x: auto; tab-size: 4; }
            .expr { border-bottom: 2px solid; }
            .expr:hover { outline: 1px solid #1f2328; }
            .covered { background: rgba(45, 164, 78, 0.14); border-color: #2da44e; }
            .failed { background: rgba(207, 34, 46, 0.14); border-color: #cf222e; }
            .never { background: rgba(110, 119, 129, 0.14); border-color: #8c959f; }
            </style>
            </head>
            <body>
            <h1>Rules coverage report</h1>
            <p><span class="expr covered">evaluated to true or a value</span>
            <span class="expr failed">evaluated only to false or errors</span>
            <span class="expr never">never evaluated</span></p>

            """)
        for (index, file) in json.rules.files.enumerated() {
            let roots = zip(json.report, fileIndexes).filter { $0.1 == index }.map(\.0)
            page.appendFile(file, roots: roots)
        }
        page.append("</body>\n</html>\n")
        return page.text
    }
}

/// Builds the page's text, escaping everything that comes from the rules.
private struct HTMLPage {
    private(set) var text = ""

    mutating func append(_ markup: String) {
        text += markup
    }

    /// A file's heading, summary and annotated source.
    mutating func appendFile(_ file: RulesCoverageReport.File, roots: [RulesCoverageReport.ExpressionReport]) {
        var total = 0
        var evaluated = 0
        for root in roots { count(root, total: &total, evaluated: &evaluated) }
        append("<section>\n<h2>")
        appendEscaped(file.name.unicodeScalars)
        append("</h2>\n<p>\(evaluated) of \(total) expressions evaluated.</p>\n<pre>")
        let scalars = Array(file.content.unicodeScalars)
        appendSpans(roots, in: scalars, from: 0, to: scalars.count)
        append("</pre>\n</section>\n")
    }

    private func count(_ report: RulesCoverageReport.ExpressionReport, total: inout Int, evaluated: inout Int) {
        total += 1
        if !report.values.isEmpty { evaluated += 1 }
        for child in report.children { count(child, total: &total, evaluated: &evaluated) }
    }

    /// The text `start..<end` with `reports` wrapped in spans; a report that overlaps an earlier one or
    /// leaves the range is shown as plain text.
    private mutating func appendSpans(
        _ reports: [RulesCoverageReport.ExpressionReport], in scalars: [Unicode.Scalar], from start: Int, to end: Int
    ) {
        var cursor = start
        for report in reports.sorted(by: { $0.sourcePosition.currentOffset < $1.sourcePosition.currentOffset }) {
            let from = report.sourcePosition.currentOffset
            let to = report.sourcePosition.endOffset + 1
            guard from >= cursor, to <= end, from < to else { continue }
            appendEscaped(scalars[cursor..<from])
            append("<span class=\"expr \(Self.style(of: report.values))\" title=\"")
            appendEscaped(Self.tooltip(for: report.values).unicodeScalars)
            append("\">")
            appendSpans(report.children, in: scalars, from: from, to: to)
            append("</span>")
            cursor = to
        }
        appendEscaped(scalars[cursor..<end])
    }

    /// The CSS class for what an expression did.
    private static func style(of values: [RulesCoverageReport.ValueCount]) -> String {
        if values.isEmpty { return "never" }
        let succeeded = values.contains { $0.value == .bool(true) || $0.value == .other }
        return succeeded ? "covered" : "failed"
    }

    /// One line per outcome: `true: 3`, `false: 1`, `other value: 2`, `error: 1`.
    private static func tooltip(for values: [RulesCoverageReport.ValueCount]) -> String {
        guard !values.isEmpty else { return "Expression never evaluated" }
        return values.map { count in
            let outcome: String
            switch count.value {
            case .bool(let value): outcome = String(value)
            case .other: outcome = "other value"
            case .error: outcome = "error"
            }
            return "\(outcome): \(count.count)"
        }.joined(separator: "\n")
    }

    /// Appends text with `& < > " '` escaped, so it is safe both as content and in a quoted attribute.
    private mutating func appendEscaped(_ scalars: some Sequence<Unicode.Scalar>) {
        text += scalars.htmlEscaped()
    }
}
