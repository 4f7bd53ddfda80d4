import DatabaseTree
import EmulatorCore
import HashTreeCollections

extension DatabaseRuleSet {
    /// May `auth` read the data at `path` (with `query`; `nil` for a plain read)? `.read` cascades: the first
    /// rule from the root down to `path` that evaluates to true grants. Rules below `path` never grant (rules
    /// are not filters). `now` is the server time in milliseconds.
    /// `trace`, if given, records how each rule fared.
    package func canRead(
        _ path: DatabasePath, root tree: DataNode, auth: JSONValue?, now: Int64, query: RuleQuery?,
        trace: DatabaseRulesTrace? = nil
    ) -> Bool {
        let environment = RuleEnvironment(
            auth: auth.map(DatabaseRuleValue.init(json:)) ?? .null, now: Double(now), oldRoot: tree, newRoot: tree,
            query: query ?? RuleQuery(), keys: path.keys[..<0], data: tree, newData: tree, trace: trace)
        return cascades(\.read, along: path, from: environment)
    }

    /// May `auth` write at `path`, turning `oldRoot` into `newRoot`? `.write` cascades like `.read`; then every
    /// `.validate` rule must hold (they do not cascade): those of the ancestors of `path` and those at or below
    /// it, wherever the new data is not null (a delete is never validated). For a multi-location update call
    /// this once per written path, with the whole update applied in `newRoot`.
    /// `trace`, if given, records how each rule fared.
    package func canWrite(
        _ path: DatabasePath, oldRoot: DataNode, newRoot: DataNode, auth: JSONValue?, now: Int64,
        trace: DatabaseRulesTrace? = nil
    ) -> Bool {
        let environment = RuleEnvironment(
            auth: auth.map(DatabaseRuleValue.init(json:)) ?? .null, now: Double(now), oldRoot: oldRoot, newRoot: newRoot,
            query: RuleQuery(), keys: path.keys[..<0], data: oldRoot, newData: newRoot, trace: trace)
        return cascades(\.write, along: path, from: environment) && validates(path, from: environment)
    }

    /// Evaluates `rule` in `environment`, counting the outcome in `coverage`; only `true` allows.
    private func allows(_ rule: Rule, _ environment: RuleEnvironment) -> Bool {
        let outcome = rule.expression.outcome(environment)
        coverage.record(outcome, of: rule.id)
        environment.trace?.record(outcome, of: rule.id)
        return outcome == .true
    }

    /// Whether a `rule` from the root down to `path` grants; `start` is the root's environment.
    private func cascades(_ rule: KeyPath<RuleNode, Rule?>, along path: DatabasePath, from start: RuleEnvironment) -> Bool {
        var environment = start
        var node = root
        var depth = 0
        while true {
            if let rule = node[keyPath: rule], allows(rule, environment) { return true }
            guard depth < path.keys.count, let child = node.child(path.keys[depth]) else { return false }
            environment.descend(into: path.keys[depth], of: path.keys, depth: depth)
            node = child
            depth += 1
        }
    }

    /// The `.validate` rules of the ancestors of `path` and of everything written at and below it.
    private func validates(_ path: DatabasePath, from start: RuleEnvironment) -> Bool {
        var environment = start
        var node = root
        for (depth, key) in path.keys.enumerated() {
            if let validate = node.validate, !environment.newData.isEmpty, !allows(validate, environment) { return false }
            guard let child = node.child(key) else { return true }
            environment.descend(into: key, of: path.keys, depth: depth)
            node = child
        }
        var keys = path.keys
        return validatesTree(node, keys: &keys, environment: environment)
    }

    /// The `.validate` rules of `node` and its descendants, where the new data exists.
    private func validatesTree(_ node: RuleNode, keys: inout [String], environment: RuleEnvironment) -> Bool {
        let newData = environment.newData
        guard !newData.isEmpty else { return true }
        if let validate = node.validate, !allows(validate, environment) { return false }
        guard case .children(let dataChildren) = newData.content else { return true }
        func visit(_ key: String, _ child: RuleNode) -> Bool {
            keys.append(key)
            defer { keys.removeLast() }
            var inner = environment
            inner.keys = keys[...]
            inner.data = environment.data.child(key)
            inner.newData = dataChildren[key] ?? .empty
            return validatesTree(child, keys: &keys, environment: inner)
        }
        for (key, child) in node.children where dataChildren[key] != nil {
            guard visit(key, child) else { return false }
        }
        if let wildcard = node.wildcard {
            for key in dataChildren.keys where node.children[key] == nil {
                guard visit(key, wildcard.node) else { return false }
            }
        }
        return true
    }
}

extension RuleEnvironment {
    /// Moves to the child `key` at index `depth` of `keys`.
    fileprivate mutating func descend(into key: String, of keys: [String], depth: Int) {
        self.keys = keys[..<(depth + 1)]
        data = data.child(key)
        newData = newData.child(key)
    }
}
