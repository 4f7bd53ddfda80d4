import EmulatorCore

/// How each rule fared in one decision (`canRead`/`canWrite` with a trace): what the Emulator UI's Requests
/// page shows of a Realtime Database request.
///
/// `@unchecked Sendable`: written only by the one decision it is given to, on that decision's thread, and
/// read only after the decision returned.
package final class DatabaseRulesTrace: @unchecked Sendable {
    private(set) var outcomes: [Int: RuleOutcome] = [:]

    /// An empty trace, for one decision.
    package init() {}

    func record(_ outcome: RuleOutcome, of id: Int) {
        outcomes[id] = outcome
    }
}

extension DatabaseRuleSet {
    /// The rules file's name in explanations and reports.
    static let fileName = "database.rules.json"

    /// One line per rule `trace` saw, in rule order: `/rooms/$room .read "auth != null": false`.
    package func explanation(of trace: DatabaseRulesTrace) -> String {
        guard !trace.outcomes.isEmpty else { return "no rule applies to this path" }
        return trace.outcomes.keys.sorted().map { id in
            let site = coverage.sites[id]
            return "\(Self.fileName):\(site.location.line):\(site.location.column) \(site.path) \(site.kind.rawValue) "
                + "\"\(site.expression)\": \(trace.outcomes[id]!.word)"
        }.joined(separator: "\n")
    }

    /// The rules file and each rule `trace` saw, in the shape of Firestore's coverage report
    /// (`{"rules": {"files": [{name, content}]}, "report": [{sourcePosition, values, valueText}]}`).
    package func report(of trace: DatabaseRulesTrace) -> JSONValue {
        var lineStarts = [0]
        for (offset, scalar) in source.unicodeScalars.enumerated() where scalar == "\n" { lineStarts.append(offset + 1) }
        let report: [JSONValue] = trace.outcomes.keys.sorted().map { id in
            let site = coverage.sites[id]
            let outcome = trace.outcomes[id]!
            let start = lineStarts[min(site.location.line - 1, lineStarts.count - 1)] + site.location.column - 1
            let value: JSONValue = outcome == .error ? ["undefined": [:]] : ["boolValue": .bool(outcome == .true)]
            return [
                "sourcePosition": [
                    "fileName": .string(Self.fileName), "line": .int(Int64(site.location.line)),
                    "column": .int(Int64(site.location.column)), "currentOffset": .int(Int64(start)),
                    "endOffset": .int(Int64(start + max(site.length, 1) - 1)),
                ],
                "values": [["value": value, "count": 1]],
                "valueText": .string(outcome.word),
            ]
        }
        return ["rules": ["files": [["name": .string(Self.fileName), "content": .string(source)]]], "report": .array(report)]
    }
}

extension RuleOutcome {
    /// `true`, `false` or `error`.
    var word: String {
        switch self {
        case .true: return "true"
        case .false: return "false"
        case .error: return "error"
        }
    }
}
