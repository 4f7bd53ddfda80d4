import EmulatorCore

extension JSONValue {
    /// A JSON value (token claims) as a rules value.
    public var ruleValue: RuleValue {
        switch self {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .int(let value): return .int(value)
        case .double(let value): return .float(value)
        case .string(let value): return .string(value)
        case .array(let values): return .list(values.map(\.ruleValue))
        case .object(let fields): return .map(fields.mapValues(\.ruleValue))
        }
    }
}

extension Credential {
    /// `request.auth`: `{uid, token}` for a user's ID token, `null` otherwise.
    public var ruleAuth: RuleValue {
        guard case .user(let token) = self else { return .null }
        return .map(["uid": .string(token.uid), "token": JSONValue.object(token.claims).ruleValue])
    }
}
