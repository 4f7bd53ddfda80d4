import Foundation
import Testing

@testable import SecurityRules

@Suite struct RulesCoverageReportTests {
    typealias Report = RulesCoverageReport.ExpressionReport

    /// The rules of a response captured from the official emulator (github.com/simpleclub/firebase-rules-helper,
    /// `firebase-rules-coverage/fixtures/firestore.rules` and `firestore-coverage.json`).
    static let productionRules =
        "service cloud.firestore {\n  match /databases/{database}/documents {\n  \t// [FUNCTIONS END]\n"
        + "  \tmatch /users/{userId} {\n    \tallow read: if request.auth.uid == userId || request.auth.uid == 'foo';\n"
        + "    }\n  \tmatch /articles/{articleId} {\n    \tallow read: if request.auth != null;\n    }\n  }\n}\n"

    static let rules = """
        rules_version = '2';
        // Offsets count Unicode scalars: cafe\u{301} 👍🏽
        service cloud.firestore {
          match /databases/{database}/documents {
            function isOwner(uid) { return request.auth.uid == uid; }
            match /posts/{post} {
              allow read: if request.auth != null && post.size() < 10;
              allow create: if isOwner(resource.data.owner) || request.auth.token.admin;
              allow update: if (request.auth == null || post == 'x') && math.abs(-2) == 2;
            }
            match /drafts/{id} { allow read: if id == 'a<b'; }
          }
        }
        """

    func compile(_ text: String, coverage: Bool = true) throws -> CompiledRuleset {
        let compilation = RulesCompiler.compile(RulesSource(fileName: "firestore.rules", text: text), recordCoverage: coverage)
        return try #require(compilation.ruleset, "\(compilation.diagnostics)")
    }

    func request(_ method: RuleMethod, _ path: String, uid: String?) -> RulesRequest {
        RulesRequest(
            service: .firestore, path: RulePath("/databases/(default)/documents/\(path)"), method: method,
            request: .map(["auth": uid.map { .map(["uid": .string($0), "token": .map(["admin": .bool(false)])]) } ?? .null]),
            resource: .null)
    }

    /// Every report in `reports` and below, parents first.
    func flatten(_ reports: [Report]) -> [Report] {
        reports.flatMap { [$0] + flatten($0.children) }
    }

    /// The text a report covers.
    func text(of report: Report, in source: String) -> String {
        let scalars = Array(source.unicodeScalars)
        var text = String.UnicodeScalarView()
        text.append(contentsOf: scalars[report.sourcePosition.currentOffset...report.sourcePosition.endOffset])
        return String(text)
    }

    /// The first report in `reports` or below, parents first, that covers exactly `expression`.
    func report(_ expression: String, in reports: [Report], source: String = rules) throws -> Report {
        try #require(flatten(reports).first { text(of: $0, in: source) == expression }, "no report for \(expression)")
    }

    func report(_ expression: String, in report: RulesCoverageReport, source: String = rules) throws -> Report {
        try self.report(expression, in: report.json.report, source: source)
    }

    func counts(_ pairs: (RulesCoverageReport.ExpressionValue, Int)...) -> [RulesCoverageReport.ValueCount] {
        pairs.map { RulesCoverageReport.ValueCount(value: $0.0, count: $0.1) }
    }

    @Test func positionsMatchProduction() throws {
        let ruleset = try compile(Self.productionRules)
        _ = ruleset.evaluate(request(.get, "users/alice", uid: "alice"))
        _ = ruleset.evaluate(request(.get, "users/bob", uid: "alice"))
        let report = RulesCoverageReport(ruleset: ruleset)
        let positions = flatten(report.json.report).map {
            let position = $0.sourcePosition
            return "\(position.line):\(position.column) \(position.currentOffset)-\(position.endOffset)"
        }
        // Production's report, entry by entry ('foo' and null, constants, have none).
        #expect(
            positions == [
                "5:21 137-191", "5:21 137-162", "5:21 137-152", "5:21 137-148", "5:21 137-143", "5:41 157-162",
                "5:51 167-191", "5:51 167-182", "5:51 167-178", "5:51 167-173",
                "8:21 253-272", "8:21 253-264", "8:21 253-259",
            ])
        #expect(report.json.report.map(\.children.count) == [2, 1])
        let source = Self.productionRules
        #expect(try self.report("request.auth.uid == userId || request.auth.uid == 'foo'", in: report, source: source).values
            == counts((.bool(true), 1), (.bool(false), 1)))
        #expect(try self.report("userId", in: report, source: source).values == counts((.other, 2)))
        // Production also lists `{}` once here, for the request where `||` short-circuited.
        #expect(try self.report("request.auth.uid == 'foo'", in: report, source: source).values == counts((.bool(false), 1)))
        #expect(try self.report("request.auth != null", in: report, source: source).values.isEmpty)
    }

    @Test func countsOutcomesByKind() throws {
        let ruleset = try compile(Self.rules)
        #expect(ruleset.evaluate(request(.get, "posts/p1", uid: "alice")).allowed)
        #expect(!ruleset.evaluate(request(.get, "posts/p1", uid: nil)).allowed)
        #expect(!ruleset.evaluate(request(.create, "posts/p1", uid: "alice")).allowed)
        let report = RulesCoverageReport(ruleset: ruleset)

        let read = try self.report("request.auth != null && post.size() < 10", in: report)
        #expect(read.values == counts((.bool(true), 1), (.bool(false), 1)))
        #expect(read.sourcePosition.line == 7)
        #expect(read.sourcePosition.column == 22)
        #expect(read.sourcePosition.fileName == "firestore.rules")
        #expect(read.children.map { text(of: $0, in: Self.rules) } == ["request.auth != null", "post.size() < 10"])
        #expect(try self.report("request.auth", in: [read]).values == counts((.other, 2)))
        // Short-circuited once: evaluated once.
        #expect(try self.report("post.size() < 10", in: report).values == counts((.bool(true), 1)))
        // A method call reports its receiver, not its callee.
        #expect(try self.report("post.size()", in: report).children.map { text(of: $0, in: Self.rules) } == ["post"])

        let create = try self.report("isOwner(resource.data.owner) || request.auth.token.admin", in: report)
        #expect(create.values == counts((.error, 1)))
        #expect(try self.report("resource.data", in: report).values == counts((.error, 1)))
        #expect(try self.report("request.auth.token.admin", in: report).values == counts((.bool(false), 1)))
        // The function failed on its argument, so its body never ran.
        #expect(try self.report("request.auth.uid == uid", in: report).values.isEmpty)
        #expect(try self.report("id == 'a<b'", in: report).values.isEmpty)
        // Roots in source order: the function body, then each condition.
        #expect(report.json.report.map(\.sourcePosition.line) == [5, 7, 8, 9, 11])
    }

    @Test func parenthesesAndNamespaces() throws {
        let ruleset = try compile(Self.rules)
        #expect(ruleset.evaluate(request(.update, "posts/p1", uid: nil)).allowed)
        let report = RulesCoverageReport(ruleset: ruleset)
        let update = try self.report("(request.auth == null || post == 'x') && math.abs(-2) == 2", in: report)
        #expect(update.values == counts((.bool(true), 1)))
        #expect(
            update.children.map { text(of: $0, in: Self.rules) } == ["request.auth == null || post == 'x'", "math.abs(-2) == 2"])
        // `math` is a namespace and `2` a constant; `-2` is an operation.
        #expect(try self.report("math.abs(-2)", in: report).children.map { text(of: $0, in: Self.rules) } == ["-2"])
        #expect(try self.report("post == 'x'", in: report).values.isEmpty)
    }

    @Test func encodesLikeProduction() throws {
        let ruleset = try compile(Self.rules)
        _ = ruleset.evaluate(request(.get, "posts/p1", uid: nil))
        _ = ruleset.evaluate(request(.create, "posts/p1", uid: "alice"))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = try encoder.encode(RulesCoverageReport(ruleset: ruleset).json)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let files = try #require((object["rules"] as? [String: Any])?["files"] as? [[String: Any]])
        #expect(files.count == 1)
        #expect(files.first?["name"] as? String == "firestore.rules")
        #expect(files.first?["content"] as? String == Self.rules)
        let report = try #require(object["report"] as? [[String: Any]])
        #expect(report.count == 5)
        let read = report[1]
        #expect(Set(read.keys) == ["sourcePosition", "values", "children"])
        #expect(
            Set((read["sourcePosition"] as? [String: Any] ?? [:]).keys)
                == ["fileName", "line", "column", "currentOffset", "endOffset"])
        let json = String(decoding: data, as: UTF8.self)
        #expect(json.contains(#"{"count":1,"value":{"boolValue":false}}"#))
        #expect(json.contains(#"{"count":1,"value":{"undefined":{}}}"#))
        #expect(json.contains(#"{"count":1,"value":{"otherValue":{}}}"#))
        // Never evaluated: no `values`; no subexpressions: no `children`.
        let body = report[0]
        #expect(Set(body.keys) == ["sourcePosition", "children"])
        let leaf = try #require((body["children"] as? [[String: Any]])?.last)
        #expect(Set(leaf.keys) == ["sourcePosition"])
    }

    @Test func htmlEscapesTheRulesAndMarksCoverage() throws {
        let ruleset = try compile(Self.rules)
        _ = ruleset.evaluate(request(.get, "posts/p1", uid: "alice"))
        _ = ruleset.evaluate(request(.create, "posts/p1", uid: "alice"))
        let html = RulesCoverageReport(ruleset: ruleset).html
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("<style>"))
        #expect(!html.contains("<script"))
        #expect(!html.contains("< 10"))
        #expect(!html.contains("a<b"))
        #expect(html.contains("rules_version = &#39;2&#39;;\n// Offsets count Unicode scalars: cafe\u{301} 👍🏽\n"))
        #expect(
            html.contains(
                #"<span class="expr never" title="Expression never evaluated"><span class="expr never" title="Expression never evaluated">id</span> == &#39;a&lt;b&#39;</span>"#
            ))
        #expect(
            html.contains(
                #"<span class="expr covered" title="true: 1"><span class="expr covered" title="other value: 1"><span class="expr covered" title="other value: 1">post</span>.size()</span> &lt; 10</span>"#
            ))
        #expect(html.contains(#"<span class="expr failed" title="error: 1">isOwner("#))
        #expect(html.contains(#"<span class="expr failed" title="false: 1">"#))
        #expect(html.contains("<h2>firestore.rules</h2>"))
    }

    @Test func everyFileIsReportedEvenWithoutCoverage() throws {
        let sources = [
            RulesSource(
                fileName: "a<1>.rules",
                text: "rules_version = '2'; service cloud.firestore { match /databases/{d}/documents/a/{x} { allow read: if x == 'a'; } }"),
            RulesSource(
                fileName: "b.rules",
                text: "rules_version = '2'; service cloud.firestore { match /databases/{d}/documents/b/{y} { allow read: if y.size() > 1; } }"),
        ]
        let ruleset = try #require(RulesCompiler.compile(sources).ruleset)
        _ = ruleset.evaluate(request(.get, "b/yy", uid: nil))
        let report = RulesCoverageReport(ruleset: ruleset)
        #expect(report.json.rules.files.map(\.name) == ["a<1>.rules", "b.rules"])
        #expect(report.json.report.map(\.sourcePosition.fileName) == ["a<1>.rules", "b.rules"])
        #expect(zip(report.json.report, sources).map { text(of: $0, in: $1.text) } == ["x == 'a'", "y.size() > 1"])
        #expect(flatten(report.json.report).allSatisfy { $0.values.isEmpty })
        let html = report.html
        #expect(html.contains("<h2>a&lt;1&gt;.rules</h2>"))
        #expect(html.contains("<p>0 of 2 expressions evaluated.</p>"))
        #expect(html.contains("<p>0 of 3 expressions evaluated.</p>"))
        #expect(!html.contains("expr covered\" title"))
    }

    /// A trace covers one decision only, with the value each expression took; the ruleset's own coverage
    /// still counts every decision.
    @Test func aTraceReportsOneDecisionWithItsValues() throws {
        let ruleset = try compile(Self.rules)
        _ = ruleset.evaluate(request(.get, "posts/p1", uid: "alice"))
        let trace = RulesTrace()
        let decision = ruleset.evaluate(request(.get, "posts/a-very-long-id", uid: "alice"), trace: trace)
        #expect(!decision.allowed)
        let traced = RulesCoverageReport(ruleset: ruleset, trace: trace)
        let size = try report("post.size()", in: traced)
        #expect(size.values == counts((.other, 1)))
        #expect(size.valueText == "14")
        #expect(try report("post.size() < 10", in: traced).valueText == "false")
        #expect(try report("request.auth != null && post.size() < 10", in: traced).values == counts((.bool(false), 1)))
        #expect(try report("request.auth != null", in: RulesCoverageReport(ruleset: ruleset)).values == counts((.bool(true), 2)))
        #expect(try report("request.auth != null", in: RulesCoverageReport(ruleset: ruleset)).valueText == nil)
        let data = try JSONEncoder().encode(traced.json)
        #expect(String(decoding: data, as: UTF8.self).contains("\"valueText\":\"14\""))
    }
}
