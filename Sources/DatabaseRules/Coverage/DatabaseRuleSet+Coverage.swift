import EmulatorCore

extension DatabaseRuleSet {
    /// How often each rule of the file has been evaluated since these rules were compiled (copies of this
    /// rule set count together), for `/.inspect/coverage.json` (emulator-only):
    /// `{"rules": [{"path": "/presence/$uid", "kind": ".write", "expression": "auth.uid == $uid", "line": 4,
    /// "column": 19, "evaluations": 3, "true": 2, "false": 1, "errors": 0}, ...]}`, every `.read`, `.write`
    /// and `.validate` in file order (`line` and `column` are where its value starts). An evaluation that
    /// fails, or gives something other than a boolean, counts under `errors` (the rule acted as `false`).
    package func coverageReport() -> JSONValue {
        let rules = coverage.snapshot().map { site, counts -> JSONValue in
            .object([
                "path": .string(site.path),
                "kind": .string(site.kind.rawValue),
                "expression": .string(site.expression),
                "line": .int(Int64(site.location.line)),
                "column": .int(Int64(site.location.column)),
                "evaluations": .int(Int64(counts.evaluations)),
                "true": .int(Int64(counts.true)),
                "false": .int(Int64(counts.false)),
                "errors": .int(Int64(counts.errors)),
            ])
        }
        return .object(["rules": .array(rules)])
    }

    /// The same counts as a self-contained HTML page for `/.inspect/coverage` (emulator-only): the rules file
    /// with each rule colored (green: true at least once, red: only ever false, orange: failed at least once,
    /// grey: never evaluated) and its counts beside its line, then a table of every rule.
    package func coverageHTML() -> String {
        CoveragePage(source: source, rules: coverage.snapshot()).render()
    }
}
