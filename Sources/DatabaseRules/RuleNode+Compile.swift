import DatabaseTree

extension RuleNode {
    /// Compiles a rules object found at `path` (its keys, `$wildcards` included; the root's is empty) whose
    /// enclosing `$wildcards` are `wildcards` (name → the index of the key each captures). Each rule gets the
    /// next index of `sites`, where its place in the file is appended.
    static func compile(
        _ json: RulesJSON, path: [String], wildcards: [String: Int], sites: inout [RulesCoverage.Site]
    ) throws(DatabaseRulesError) -> RuleNode {
        guard case .object(let members) = json.kind else {
            throw DatabaseRulesError("Expected an object of rules, not a \(json.typeName).", at: json.location)
        }
        var rules: [RuleScope.Kind: Rule] = [:]
        var indexOn: [String] = []
        var childMembers: [RulesJSON.Member] = []
        var wildcardMember: RulesJSON.Member?
        for member in members {
            if member.key.hasPrefix(".") {
                if member.key == ".indexOn" {
                    indexOn = try compileIndexOn(member.value)
                } else if let kind = RuleScope.Kind(rawValue: member.key) {
                    let scope = RuleScope(kind: kind, wildcards: wildcards)
                    rules[kind] = try compileRule(member.value, scope: scope, path: path, sites: &sites)
                } else {
                    throw DatabaseRulesError("Invalid key: '\(member.key)' (only .read, .write, .validate and .indexOn may start with '.').", at: member.keyLocation)
                }
            } else if member.key.hasPrefix("$") {
                let name = member.key
                guard name.count > 1, name.unicodeScalars.allSatisfy(RuleLexer.isIdentifierPart) else {
                    throw DatabaseRulesError("Invalid wildcard name '\(name)'.", at: member.keyLocation)
                }
                if let other = wildcardMember {
                    throw DatabaseRulesError("Can't have two wildcards ('\(other.key)' and '\(name)') at the same level.", at: member.keyLocation)
                }
                wildcardMember = member
            } else {
                guard DatabasePath.isValidKey(member.key) else {
                    throw DatabaseRulesError("Invalid key '\(member.key)': keys can't contain '.', '#', '$', '/', '[' or ']'.", at: member.keyLocation)
                }
                childMembers.append(member)
            }
        }
        var children: [String: RuleNode] = [:]
        for member in childMembers {
            children[member.key] = try compile(member.value, path: path + [member.key], wildcards: wildcards, sites: &sites)
        }
        var wildcard: Wildcard?
        if let member = wildcardMember {
            var inner = wildcards
            inner[member.key] = path.count
            let node = try compile(member.value, path: path + [member.key], wildcards: inner, sites: &sites)
            wildcard = Wildcard(name: member.key, node: node)
        }
        return RuleNode(
            read: rules[.read], write: rules[.write], validate: rules[.validate], indexOn: indexOn,
            children: children, wildcard: wildcard)
    }

    /// A `.read`/`.write`/`.validate` value at `path`: a boolean or an expression string.
    private static func compileRule(
        _ json: RulesJSON, scope: RuleScope, path: [String], sites: inout [RulesCoverage.Site]
    ) throws(DatabaseRulesError) -> Rule {
        let expression: RuleExpression
        let text: String
        let length: Int
        switch json.kind {
        case .bool(let value):
            expression = .literal(.bool(value))
            text = String(value)
            length = text.unicodeScalars.count
        case .string(let source):
            expression = try RuleParser.compile(source, scope: scope)
            text = source.string
            // From the opening quote to the closing one, whose location ends `locations`.
            length = (source.locations.last?.column ?? json.location.column) - json.location.column + 1
        default:
            throw DatabaseRulesError(
                "\(scope.kind.rawValue) must be a boolean or a string expression, not a \(json.typeName).", at: json.location)
        }
        sites.append(
            RulesCoverage.Site(
                path: "/" + path.joined(separator: "/"), kind: scope.kind, expression: text, location: json.location,
                length: length))
        return Rule(id: sites.count - 1, expression: expression)
    }

    /// `.indexOn`: a child name (or `.value`) or an array of them.
    private static func compileIndexOn(_ json: RulesJSON) throws(DatabaseRulesError) -> [String] {
        let elements: [RulesJSON]
        switch json.kind {
        case .string: elements = [json]
        case .array(let array): elements = array
        default: throw DatabaseRulesError(".indexOn must be a string or an array of strings, not a \(json.typeName).", at: json.location)
        }
        var keys: [String] = []
        for element in elements {
            guard case .string(let text) = element.kind else {
                throw DatabaseRulesError(".indexOn must be a string or an array of strings.", at: element.location)
            }
            keys.append(text.string)
        }
        return keys
    }
}
