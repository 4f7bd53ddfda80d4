import DatabaseTree

extension RuleSnapshot {
    /// Calls `method` with already evaluated arguments (their number and kinds were checked when compiled).
    func call(_ method: SnapshotMethod, _ arguments: [DatabaseRuleValue]) throws(RuleEvaluationError) -> DatabaseRuleValue {
        switch method {
        case .val:
            if let leaf = node.leaf { return DatabaseRuleValue(leaf: leaf) }
            return node.isEmpty ? .null : .children
        case .child:
            let relative = try Self.path(arguments[0])
            return .snapshot(RuleSnapshot(tree: tree, path: path.appending(relative), node: node.node(at: relative)))
        case .parent:
            guard !path.isRoot else { throw RuleEvaluationError("The root has no parent.") }
            let parent = path.parent
            return .snapshot(RuleSnapshot(tree: tree, path: parent, node: tree.node(at: parent)))
        case .hasChild:
            return .bool(node.exists(at: try Self.path(arguments[0])))
        case .hasChildren:
            guard let names = arguments.first else { return .bool(!node.children.isEmpty) }
            guard case .list(let list) = names else {
                throw RuleEvaluationError("hasChildren() takes a list of child names, not a \(names.typeName).")
            }
            for name in list where !node.exists(at: try Self.path(name)) { return .bool(false) }
            return .bool(true)
        case .exists:
            return .bool(!node.isEmpty)
        case .getPriority:
            return node.priority.map(DatabaseRuleValue.init(leaf:)) ?? .null
        case .isNumber, .isString, .isBoolean:
            switch (method, node.leaf) {
            case (.isNumber, .number?), (.isString, .string?), (.isBoolean, .bool?): return .bool(true)
            default: return .bool(false)
            }
        }
    }

    /// A child path argument: keys separated by `/`. A key no data can have (`a.b`) names a child that does
    /// not exist, as the live service answers `root.child('banned/' + auth.uid)` for an email uid.
    private static func path(_ argument: DatabaseRuleValue) throws(RuleEvaluationError) -> DatabasePath {
        guard case .string(let text) = argument else {
            throw RuleEvaluationError("A child path must be a string, not a \(argument.typeName).")
        }
        return DatabasePath(text)
    }
}
