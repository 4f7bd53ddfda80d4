import DatabaseRules
import DatabaseTree
import EmulatorCore
import Testing

@Suite("database.rules.json: coverage counts and report")
struct CoverageTests {
    /// The chat app's presence rules, laid out as a file (line and column matter).
    static let presence = """
        {
          "rules": {
            ".read": false,
            "presence": {
              "$userId": {
                ".read": "auth != null",
                ".write": "auth != null && auth.uid == $userId",
                ".validate": "newData.hasChildren(['online'])"
              }
            },
            "admin": {".write": "auth.token.admin === true"}
          }
        }
        """

    /// The report's entries, in order.
    private func entries(_ rules: DatabaseRuleSet) -> [JSONValue] {
        rules.coverageReport().objectValue?["rules"]?.arrayValue ?? []
    }

    /// The report's entry for the `kind` rule at `path`.
    private func entry(_ rules: DatabaseRuleSet, _ path: String, _ kind: String) -> [String: JSONValue] {
        entries(rules).compactMap(\.objectValue).first { $0["path"] == .string(path) && $0["kind"] == .string(kind) } ?? [:]
    }

    /// `[evaluations, true, false, errors]` of the `kind` rule at `path`.
    private func counts(_ rules: DatabaseRuleSet, _ path: String, _ kind: String) -> [Int64?] {
        let entry = entry(rules, path, kind)
        return ["evaluations", "true", "false", "errors"].map { entry[$0]?.intValue }
    }

    @Test("every evaluation of .read, .write and .validate is counted by outcome, literals included")
    func countsOutcomes() throws {
        let rules = try DatabaseRuleSet(source: Self.presence)
        let online: JSONValue = ["online": true, "lastSeen": 1]
        #expect(rules.canRead("/presence/u1", auth: user("u1")))  // / false, $userId true
        #expect(!rules.canRead("/presence/u1"))  // / false, $userId false
        #expect(rules.canSet("/presence/u1", online, auth: user("u1")))  // .write true, .validate true
        #expect(!rules.canSet("/presence/u2", online, auth: user("u1")))  // .write false: no validation
        #expect(!rules.canSet("/presence/u1", ["lastSeen": 2], auth: user("u1")))  // .write true, .validate false
        #expect(counts(rules, "/", ".read") == [2, 0, 2, 0])
        #expect(counts(rules, "/presence/$userId", ".read") == [2, 1, 1, 0])
        #expect(counts(rules, "/presence/$userId", ".write") == [3, 2, 1, 0])
        #expect(counts(rules, "/presence/$userId", ".validate") == [2, 1, 1, 0])
    }

    @Test("the report lists every rule in file order with its place and text; unused rules count zero")
    func report() throws {
        let rules = try DatabaseRuleSet(source: Self.presence)
        #expect(rules.canRead("/presence/u1", auth: user("u1")))
        let report = entries(rules)
        #expect(report.count == 5)
        #expect(
            report.first == [
                "path": "/", "kind": ".read", "expression": "false", "line": 3, "column": 14,
                "evaluations": 1, "true": 0, "false": 1, "errors": 0,
            ])
        #expect(
            report.last == [
                "path": "/admin", "kind": ".write", "expression": "auth.token.admin === true", "line": 11, "column": 25,
                "evaluations": 0, "true": 0, "false": 0, "errors": 0,
            ])
        #expect(entry(rules, "/presence/$userId", ".write")["expression"] == "auth != null && auth.uid == $userId")
        #expect(entry(rules, "/presence/$userId", ".write")["line"] == 7)
        #expect(entry(rules, "/presence/$userId", ".write")["column"] == 19)
        let places = report.map { [$0.objectValue?["line"]?.intValue, $0.objectValue?["column"]?.intValue] }
        #expect(places == [[3, 14], [6, 18], [7, 19], [8, 22], [11, 25]])
    }

    @Test("a rule whose evaluation fails, or is not a boolean, counts an error and denies")
    func errors() throws {
        let rules = try DatabaseRuleSet(source: Self.presence)
        #expect(!rules.canSet("/admin", 1))  // auth is null: auth.token.admin is null too, false
        #expect(!rules.canSet("/admin", 1, auth: user("a")))  // auth.token.admin is null: false
        #expect(rules.canSet("/admin", 1, auth: user("a", token: ["admin": true])))
        #expect(counts(rules, "/admin", ".write") == [3, 1, 2, 0])

        let notBoolean = try DatabaseRuleSet(source: #"{"rules": {"names": {".read": "auth.uid"}}}"#)
        #expect(!notBoolean.canRead("/names", auth: user("alice")))
        #expect(counts(notBoolean, "/names", ".read") == [1, 0, 0, 1])
    }

    @Test("copies share counters; compiling again, or another built-in rule set, starts from zero")
    func sharing() throws {
        let rules = try DatabaseRuleSet(source: Self.presence)
        let copy = rules
        #expect(!copy.canRead("/"))
        #expect(counts(rules, "/", ".read") == [1, 0, 1, 0])
        #expect(counts(try DatabaseRuleSet(source: Self.presence), "/", ".read") == [0, 0, 0, 0])

        #expect(DatabaseRuleSet.open.canRead("/"))
        #expect(counts(.open, "/", ".read") == [0, 0, 0, 0])
    }

    @Test("evaluations from many threads at once are all counted")
    func concurrentCounting() async throws {
        let rules = try DatabaseRuleSet(source: Self.presence)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for _ in 0..<250 { _ = rules.canRead("/presence/u\(task)", auth: task.isMultiple(of: 2) ? user("u") : nil) }
                }
            }
        }
        #expect(counts(rules, "/", ".read") == [2000, 0, 2000, 0])
        #expect(counts(rules, "/presence/$userId", ".read") == [2000, 1000, 1000, 0])
    }

    @Test("the HTML page shows the file and a table, escaped, each rule colored by its status")
    func html() throws {
        let rules = try rules(#"""
            {"a": {".read": "auth.uid < 'b' && auth.uid != '<script>'"},
             "b": {".read": "auth.x.y == 1", ".write": false},
             "c": {".read": "auth != null"}}
            """#)
        #expect(rules.canRead("/a", auth: user("a")))
        #expect(!rules.canRead("/b"))
        #expect(!rules.canRead("/c"))
        let html = rules.coverageHTML()
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(!html.contains("<script"))
        #expect(!html.contains("http"))  // no external assets
        // The file's text, with the rule's span colored.
        #expect(html.contains(#"<span class="rule covered" title="/a .read: 1 evaluations, 1 true, 0 false, 0 errors">"#))
        #expect(html.contains("&quot;auth.uid &lt; &#39;b&#39; &amp;&amp; auth.uid != &#39;&lt;script&gt;&#39;&quot;</span>"))
        #expect(html.contains(#"<span class="rule failed""#))
        #expect(html.contains(#"<span class="rule unused" title="/b .write: 0 evaluations"#))
        #expect(html.contains(#"<span class="rule denied""#))
        // The table.
        #expect(html.contains("<td><code>auth.uid &lt; &#39;b&#39; &amp;&amp; auth.uid != &#39;&lt;script&gt;&#39;</code></td>"))
        #expect(html.contains(#"<tr class="unused"><td>2:44</td><td><code>/b</code></td><td><code>.write</code></td>"#))
    }
}
