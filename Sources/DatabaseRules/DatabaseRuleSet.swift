import DatabaseTree
import EmulatorCore

/// Compiled `database.rules.json`: who may read and write where, what new data must look like, and which
/// children are indexed. Compiled once; evaluating a rule is a walk over its expression tree.
package struct DatabaseRuleSet: Sendable {
    /// The source text as given (`GET /.settings/rules.json` returns it, comments included).
    package let source: String
    let root: RuleNode
    /// How often each rule evaluated true, false or failed; shared by the copies of this rule set.
    let coverage: RulesCoverage

    /// Compiles the rules file: JSON that may contain `//` and `/* */` comments, an object whose only key is
    /// `"rules"`. Throws, with the line and column, for bad JSON, an unknown `.key`, a rule that is neither a
    /// boolean nor an expression, an expression that does not parse or names an unknown variable or method,
    /// and two `$wildcards` at one level.
    package init(source: String) throws(DatabaseRulesError) {
        let json = try RulesJSON.parse(source)
        guard case .object(let members) = json.kind else {
            throw DatabaseRulesError("The rules file must be an object with a \"rules\" key, not a \(json.typeName).", at: json.location)
        }
        if let extra = members.first(where: { $0.key != "rules" }) {
            throw DatabaseRulesError("Invalid key '\(extra.key)': the rules file may only have a \"rules\" key.", at: extra.keyLocation)
        }
        guard let rules = members.first else {
            throw DatabaseRulesError("The rules file must have a \"rules\" key.", at: json.location)
        }
        self.source = source
        var sites: [RulesCoverage.Site] = []
        root = try RuleNode.compile(rules.value, path: [], wildcards: [:], sites: &sites)
        coverage = RulesCoverage(sites: sites)
    }

    /// Everyone may read and write everything. Each use compiles anew, so each database counts its own coverage.
    package static var open: DatabaseRuleSet { compiled(#"{"rules": {".read": true, ".write": true}}"#) }
    /// No one may read or write anything (but administrators, who bypass rules), with coverage of its own.
    package static var locked: DatabaseRuleSet { compiled(#"{"rules": {".read": false, ".write": false}}"#) }

    private static func compiled(_ source: String) -> DatabaseRuleSet {
        do {
            return try DatabaseRuleSet(source: source)
        } catch {
            fatalError("built-in rules do not compile: \(error)")
        }
    }

    /// The `.indexOn` keys of the rules at `path` (none where no rules apply).
    package func indexOn(_ path: DatabasePath) -> [String] {
        var node = root
        for key in path.keys {
            guard let child = node.child(key) else { return [] }
            node = child
        }
        return node.indexOn
    }
}
