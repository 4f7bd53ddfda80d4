import DatabaseTree

extension RuleNode {
    /// Compiles a rules object found at `depth` (the root's is 0) whose enclosing `$wildcards` are
    /// `wildcards` (name → the index of the key each captures).
    static func compile(_ json: RulesJSON, depth: Int, wildcards: [String: Int]) throws(DatabaseRulesError) -> RuleNode {
        guard case .object(let members) = json.kind else {
            throw DatabaseRulesError("Expected an object of rules, not a \(json.typeName).", at: json.location)
        }
        var rules: [RuleScope.Kind: RuleExpression] = [:]
        var indexOn: [String] = []
        var childMembers: [RulesJSON.Member] = []
        var wildcardMember: RulesJSON.Member?
        for member in members {
            if member.key.hasPrefix(".") {
                if member.key == ".indexOn" {
                    indexOn = try compileIndexOn(member.value)
                } else if let kind = RuleScope.Kind(rawValue: member.key) {
                    rules[kind] = try compileRule(member.value, scope: RuleScope(kind: kind, wildcards: wildcards))
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
            children[member.key] = try compile(member.value, depth: depth + 1, wildcards: wildcards)
        }
        var wildcard: Wildcard?
        if let member = wildcardMember {
            var inner = wildcards
            inner[member.key] = depth
            wildcard = Wildcard(name: member.key, node: try compile(member.value, depth: depth + 1, wildcards: inner))
        }
        return RuleNode(
            read: rules[.read], write: rules[.write], validate: rules[.validate], indexOn: indexOn,
            children: children, wildcard: wildcard)
    }

    /// A `.read`/`.write`/`.validate` value: a boolean or an expression string.
    private static func compileRule(_ json: RulesJSON, scope: RuleScope) throws(DatabaseRulesError) -> RuleExpression {
        switch json.kind {
        case .bool(let value):
            return .literal(.bool(value))
        case .string(let text):
            return try RuleParser.compile(text, scope: scope)
        default:
            throw DatabaseRulesError(
                "\(scope.kind.rawValue) must be a boolean or a string expression, not a \(json.typeName).", at: json.location)
        }
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
