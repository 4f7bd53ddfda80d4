import DatabaseTree

/// What a rule sees where it is evaluated: the caller, the clock, both trees and the rule's location.
struct RuleEnvironment {
    /// `auth`: null or the caller's object.
    var auth: DatabaseRuleValue
    /// `now`, in milliseconds.
    var now: Double
    /// The data before the operation (`root`, `data`).
    var oldRoot: DataNode
    /// The data after a write (`newData`); the same as `oldRoot` for reads.
    var newRoot: DataNode
    /// `query` (reads only).
    var query: RuleQuery
    /// The keys of the rule's location; `$wildcards` read their key here.
    var keys: ArraySlice<String>
    /// `oldRoot` at the rule's location.
    var data: DataNode
    /// `newRoot` at the rule's location.
    var newData: DataNode
    /// Where each rule's outcome is recorded for this decision, if anywhere.
    var trace: DatabaseRulesTrace? = nil

    func value(of variable: RuleVariable) -> DatabaseRuleValue {
        switch variable {
        case .auth: auth
        case .now: .number(now)
        case .query: .query(query)
        case .root: .snapshot(RuleSnapshot(tree: oldRoot, path: .root, node: oldRoot))
        case .data: .snapshot(RuleSnapshot(tree: oldRoot, path: DatabasePath(keys: Array(keys)), node: data))
        case .newData: .snapshot(RuleSnapshot(tree: newRoot, path: DatabasePath(keys: Array(keys)), node: newData))
        case .wildcard(let depth): .string(keys[keys.startIndex + depth])
        }
    }
}
