import DatabaseTree
import EmulatorCore

extension RuleExpression {
    /// How the rule evaluates as a whole: only `true` grants; an error or a non-boolean value is an `error`.
    func outcome(_ environment: RuleEnvironment) -> RuleOutcome {
        do {
            switch try evaluate(environment) {
            case .bool(true): return .true
            case .bool(false): return .false
            default: return .error
            }
        } catch {
            return .error
        }
    }

    /// The expression's value; a type error, a member of null and the like throw, failing the rule.
    func evaluate(_ environment: RuleEnvironment) throws(RuleEvaluationError) -> DatabaseRuleValue {
        switch self {
        case .literal(let value):
            return value
        case .variable(let variable):
            return environment.value(of: variable)
        case .member(let receiver, let name):
            return try Self.member(name, of: try receiver.evaluate(environment))
        case .index(let receiver, let key):
            return try Self.index(try receiver.evaluate(environment), try key.evaluate(environment))
        case .snapshotMethod(let receiver, let method, let arguments):
            let value = try receiver.evaluate(environment)
            guard case .snapshot(let snapshot) = value else {
                throw RuleEvaluationError("\(method.rawValue)() called on a \(value.typeName).")
            }
            return try snapshot.call(method, try arguments.evaluate(environment))
        case .stringMethod(let receiver, let method, let arguments):
            let value = try receiver.evaluate(environment)
            guard case .string(let string) = value else {
                throw RuleEvaluationError("\(method.rawValue)() called on a \(value.typeName).")
            }
            return try method.apply(to: string, try arguments.evaluate(environment))
        case .matches(let receiver, let regex):
            let value = try receiver.evaluate(environment)
            guard case .string(let string) = value else {
                throw RuleEvaluationError("matches() called on a \(value.typeName).")
            }
            return .bool(regex.matches(string))
        case .list(let elements):
            return .list(try elements.evaluate(environment))
        case .not(let operand):
            return .bool(!(try operand.evaluateBoolean(environment, for: "!")))
        case .negate(let operand):
            let value = try operand.evaluate(environment)
            guard case .number(let number) = value else { throw RuleEvaluationError("Cannot negate a \(value.typeName).") }
            return .number(-number)
        case .binary(let op, let lhs, let rhs):
            return try op.apply(try lhs.evaluate(environment), try rhs.evaluate(environment))
        case .and(let lhs, let rhs):
            guard try lhs.evaluateBoolean(environment, for: "&&") else { return .bool(false) }
            return .bool(try rhs.evaluateBoolean(environment, for: "&&"))
        case .or(let lhs, let rhs):
            if try lhs.evaluateBoolean(environment, for: "||") { return .bool(true) }
            return .bool(try rhs.evaluateBoolean(environment, for: "||"))
        case .conditional(let condition, let then, let otherwise):
            return try condition.evaluateBoolean(environment, for: "?:")
                ? then.evaluate(environment) : otherwise.evaluate(environment)
        }
    }

    private func evaluateBoolean(_ environment: RuleEnvironment, for op: String) throws(RuleEvaluationError) -> Bool {
        let value = try evaluate(environment)
        guard case .bool(let bool) = value else {
            throw RuleEvaluationError("'\(op)' needs a boolean, not a \(value.typeName).")
        }
        return bool
    }

    /// `value.name`. A member of null is null, as the live service answers `auth.uid` for a client that is not
    /// signed in (goldibex/targaryen's recorded cases); calling a method of null fails.
    private static func member(_ name: String, of value: DatabaseRuleValue) throws(RuleEvaluationError) -> DatabaseRuleValue {
        switch value {
        case .null:
            return .null
        case .string(let string) where name == "length":
            return .number(Double(string.utf16.count))
        case .json(.object(let members)):
            return members[name].map(DatabaseRuleValue.init(json:)) ?? .null
        case .json(.array(let elements)) where name == "length":
            return .number(Double(elements.count))
        case .query(let query):
            return query.field(name)
        default:
            throw RuleEvaluationError("No property '\(name)' on a \(value.typeName).")
        }
    }

    /// `value[key]`.
    private static func index(_ value: DatabaseRuleValue, _ key: DatabaseRuleValue) throws(RuleEvaluationError) -> DatabaseRuleValue {
        switch (value, key) {
        case (.null, _):
            return .null
        case (.json(.object), .string(let name)):
            return try member(name, of: value)
        case (.json(.object), .number(let number)):
            return try member(JSONValue.double(number).primitiveString ?? "", of: value)
        case (.json(.array(let elements)), .number(let number)):
            guard let index = Int(exactly: number), elements.indices.contains(index) else { return .null }
            return DatabaseRuleValue(json: elements[index])
        default:
            throw RuleEvaluationError("Cannot index a \(value.typeName) with a \(key.typeName).")
        }
    }
}

extension [RuleExpression] {
    fileprivate func evaluate(_ environment: RuleEnvironment) throws(RuleEvaluationError) -> [DatabaseRuleValue] {
        var values: [DatabaseRuleValue] = []
        values.reserveCapacity(count)
        for expression in self { values.append(try expression.evaluate(environment)) }
        return values
    }
}
