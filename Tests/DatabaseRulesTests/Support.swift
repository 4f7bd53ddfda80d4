import DatabaseRules
import DatabaseTree
import EmulatorCore

/// A tree from plain JSON.
func tree(_ json: JSONValue) -> DataNode {
    do {
        return try DataNode(json: json)
    } catch {
        fatalError("bad test data: \(error)")
    }
}

/// `base` with `value` written at `path`.
func writing(_ value: JSONValue, at path: String, in base: DataNode) -> DataNode {
    var result = base
    result.set(tree(value), at: DatabasePath(path))
    return result
}

/// An `auth` object as the lead builds it.
func user(_ uid: String, token: [String: JSONValue] = [:]) -> JSONValue {
    .object(["uid": .string(uid), "provider": "password", "token": .object(token)])
}

/// Compiles a rules file whose `rules` object is `rules` (JSON text).
func rules(_ rules: String) throws -> DatabaseRuleSet {
    try DatabaseRuleSet(source: #"{"rules": "# + rules + "}")
}

/// The error compiling `source` throws, if any.
func compileError(_ source: String) -> DatabaseRulesError? {
    do {
        _ = try DatabaseRuleSet(source: source)
        return nil
    } catch {
        return error
    }
}

extension DatabaseRuleSet {
    /// A read at `path`.
    func canRead(_ path: String, _ root: DataNode = .empty, auth: JSONValue? = nil, now: Int64 = 0, query: RuleQuery? = nil) -> Bool {
        canRead(DatabasePath(path), root: root, auth: auth, now: now, query: query)
    }

    /// Setting `value` at `path` over `root`.
    func canSet(_ path: String, _ value: JSONValue, over root: DataNode = .empty, auth: JSONValue? = nil, now: Int64 = 0) -> Bool {
        canWrite(DatabasePath(path), oldRoot: root, newRoot: writing(value, at: path, in: root), auth: auth, now: now)
    }
}
