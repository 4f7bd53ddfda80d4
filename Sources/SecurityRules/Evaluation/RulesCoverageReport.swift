/// A rules coverage report: every expression of a compiled ruleset, where it is, and what it evaluated to
/// over all the requests decided so far. The Cloud Firestore emulator serves it at
/// `GET /emulator/v1/projects/{project}:ruleCoverage` (`json`) and `:ruleCoverage.html` (`html`); see
/// firebase.google.com/docs/rules/emulator-reports.
///
/// The JSON has production's shape, which reuses the Firebase Rules API's `Source`, `ExpressionReport`,
/// `SourcePosition` and `ValueCount` messages (a captured response: github.com/simpleclub/firebase-rules-helper,
/// `firebase-rules-coverage/fixtures/firestore-coverage.json`):
///
/// ```
/// {"rules": {"files": [{"name": "firestore.rules", "content": "..."}]},
///  "report": [{"sourcePosition": {"fileName": "firestore.rules", "line": 5, "column": 21,
///                                 "currentOffset": 137, "endOffset": 191},
///              "values": [{"value": {"boolValue": true}, "count": 1}],
///              "children": [ ...the same, for each subexpression... ]}]}
/// ```
///
/// As in production: there is one top-level entry per `allow` condition (Hearth adds one per function body
/// and `let` value; the captured response has no functions), offsets count Unicode scalars from 0,
/// `endOffset` is the offset of the expression's *last* character (inclusive), `column` counts from 1,
/// constant literals (`'foo'`, `null`, `10`) get no entry, and `values` or `children` are left out when
/// empty (no `values`: never evaluated).
///
/// Hearth counts outcomes by kind rather than by distinct value (see `RulesCoverage.Counts`), so a value is
/// `{"boolValue": true}`, `{"boolValue": false}`, `{"otherValue": {}}` (emulator-only: some non-boolean
/// value) or `{"undefined": {}}` (an error, production's marker; the message is not recorded). Production
/// also lists `{}` for a subexpression skipped by short-circuiting; Hearth lists nothing for it.
public struct RulesCoverageReport: Sendable {
    /// The `:ruleCoverage` response.
    public let json: Body
    /// Which of `json.rules.files` each entry of `json.report` belongs to.
    let fileIndexes: [Int]

    /// Reports on `ruleset` as it has been evaluated so far (counts are read now). A ruleset compiled without
    /// `recordCoverage` reports every expression as never evaluated.
    public init(ruleset: CompiledRuleset) {
        self.init(ruleset: ruleset, counts: ruleset.coverage?.snapshot ?? [:], trace: nil)
    }

    /// Reports on one decision of `ruleset` that `trace` recorded (`CompiledRuleset.evaluate(_:trace:)`): each
    /// expression it evaluated, counted once, with the value it took last (`valueText`, an emulator-only field).
    public init(ruleset: CompiledRuleset, trace: RulesTrace) {
        self.init(ruleset: ruleset, counts: trace.counts, trace: trace)
    }

    private init(ruleset: CompiledRuleset, counts: [Int: RulesCoverage.Counts], trace: RulesTrace?) {
        var builder = Builder(sources: ruleset.sources, counts: counts, trace: trace)
        let roots = builder.reports(for: ruleset.program)
        json = Body(
            rules: Source(files: ruleset.sources.map { File(name: $0.fileName, content: $0.text) }),
            report: roots.map(\.report))
        fileIndexes = roots.map(\.file)
    }
}

extension RulesCoverageReport {
    /// The JSON body of `:ruleCoverage`.
    public struct Body: Encodable, Sendable, Equatable {
        /// The rules reported on.
        public var rules: Source
        /// One entry per top-level expression, in source order, each with its subexpressions.
        public var report: [ExpressionReport]
    }

    /// The rules files (the Firebase Rules API's `Source`).
    public struct Source: Encodable, Sendable, Equatable {
        /// The files, in the order they were compiled.
        public var files: [File]
    }

    /// One rules file (the Firebase Rules API's `File`).
    public struct File: Encodable, Sendable, Equatable {
        /// The file name (`firestore.rules`).
        public var name: String
        /// The rules text.
        public var content: String
    }

    /// One expression: where it is, what it evaluated to, and its subexpressions.
    public struct ExpressionReport: Encodable, Sendable, Equatable {
        /// Where the expression is.
        public var sourcePosition: SourcePosition
        /// What it evaluated to, and how often; empty if it was never evaluated.
        public var values: [ValueCount]
        /// Its subexpressions that are not constants, in source order.
        public var children: [ExpressionReport]
        /// What it evaluated to last, in a report of one traced decision (emulator-only).
        public var valueText: String? = nil

        private enum CodingKeys: String, CodingKey {
            case sourcePosition, values, children, valueText
        }

        /// Encodes as production does: `values` and `children` only when not empty (and `valueText` when set).
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(sourcePosition, forKey: .sourcePosition)
            if !values.isEmpty { try container.encode(values, forKey: .values) }
            if !children.isEmpty { try container.encode(children, forKey: .children) }
            try container.encodeIfPresent(valueText, forKey: .valueText)
        }
    }

    /// Where an expression is (the Firebase Rules API's `SourcePosition`).
    public struct SourcePosition: Encodable, Sendable, Equatable {
        /// The file it is in.
        public var fileName: String
        /// The line of its first character, from 1.
        public var line: Int
        /// The column of its first character, from 1, in Unicode scalars.
        public var column: Int
        /// The offset of its first character in the file, from 0, in Unicode scalars.
        public var currentOffset: Int
        /// The offset of its last character (inclusive, as production reports it).
        public var endOffset: Int
    }

    /// How many times an expression evaluated to `value` (the Firebase Rules API's `ValueCount`).
    public struct ValueCount: Encodable, Sendable, Equatable {
        /// The outcome.
        public var value: ExpressionValue
        /// How many times.
        public var count: Int
    }

    /// An outcome of evaluating an expression, by kind.
    public enum ExpressionValue: Encodable, Sendable, Equatable {
        /// `true` or `false`: `{"boolValue": true}`.
        case bool(Bool)
        /// Some other value (which one is not recorded): `{"otherValue": {}}` (emulator-only).
        case other
        /// An error: `{"undefined": {}}`, production's marker for one.
        case error

        private enum CodingKeys: String, CodingKey {
            case boolValue, otherValue, undefined
        }

        /// Encodes as a one-field object, as production does.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            switch self {
            case .bool(let value): try container.encode(value, forKey: .boolValue)
            case .other: _ = container.nestedContainer(keyedBy: CodingKeys.self, forKey: .otherValue)
            case .error: _ = container.nestedContainer(keyedBy: CodingKeys.self, forKey: .undefined)
            }
        }
    }
}
