/// Evaluates expressions for one decision. Errors are thrown as `RuleError` and caught where the language
/// lets a decisive operand absorb them (`&&`, `||`).
struct Evaluator {
    /// Limits of production: function call depth and document reads per decision.
    static let maximumCallDepth = 20

    let program: RuleProgram
    /// `request`, `resource` and the wildcard bindings of the matched path: what every function body sees.
    let globals: Scope
    let data: any RulesDataSource
    let coverage: RulesCoverage?
    /// This decision's own record of every expression's outcome, when one is asked for.
    var trace: RulesTrace? = nil
    let accessLimit: Int
    let debug: (@Sendable (String) -> Void)?
    /// Mutable per-decision state (document reads, call depth).
    let state: EvaluationState
    /// Set when deciding a list for a sample of a query's documents (`RulesProof`).
    var proof: RulesProof? = nil

    /// Evaluates `expression` with `scope` in lexical scope `lexical`, recording coverage if asked.
    func evaluate(_ expression: Expression, _ scope: Scope, lexical: Int) throws(RuleError) -> RuleValue {
        guard coverage != nil || trace != nil else { return try evaluateNode(expression, scope, lexical: lexical) }
        do {
            let value = try evaluateNode(expression, scope, lexical: lexical)
            coverage?.record(expression.id, .success(value))
            trace?.record(expression.id, .success(value))
            return value
        } catch {
            coverage?.record(expression.id, .failure(error))
            trace?.record(expression.id, .failure(error))
            throw error
        }
    }

    private func evaluateNode(_ expression: Expression, _ scope: Scope, lexical: Int) throws(RuleError) -> RuleValue {
        switch expression.kind {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .int(let value): return .int(value)
        case .float(let value): return .float(value)
        case .string(let value): return .string(value)
        case .bytes(let value): return .bytes(value)
        case .list(let items):
            var values: [RuleValue] = []
            values.reserveCapacity(items.count)
            for item in items { values.append(try evaluate(item, scope, lexical: lexical)) }
            return .list(values)
        case .map(let entries):
            var map: [String: RuleValue] = [:]
            for entry in entries {
                guard case .string(let key) = try evaluate(entry.key, scope, lexical: lexical) else {
                    throw RuleError(.typeMismatch, "map keys must be strings")
                }
                map[key] = try evaluate(entry.value, scope, lexical: lexical)
            }
            return .map(map)
        case .path(let segments):
            return .path(try path(segments, scope, lexical: lexical))
        case .identifier(let name):
            if let value = try scope.lookup(name) { return value }
            throw RuleError(.undefinedVariable, "Variable '\(name)' is not defined.")
        case .member(let target, let name):
            return try member(try evaluate(target, scope, lexical: lexical), name)
        case .index(let target, let index):
            let receiver = try evaluate(target, scope, lexical: lexical)
            return try Stdlib.index(receiver, try evaluate(index, scope, lexical: lexical))
        case .slice(let target, let from, let to):
            let receiver = try evaluate(target, scope, lexical: lexical)
            let lower = try from.map { (bound: Expression) throws(RuleError) in try evaluate(bound, scope, lexical: lexical) }
            let upper = try to.map { (bound: Expression) throws(RuleError) in try evaluate(bound, scope, lexical: lexical) }
            return try Stdlib.slice(receiver, lower, upper)
        case .call(let callee, let arguments):
            if let proof, case .member(let receiver, _) = callee.kind, Self.readsResource(receiver, proof) { throw Self.unproven }
            return try call(callee, arguments, scope, lexical: lexical)
        case .unary(let op, let operand):
            if let proof, op == .not, Self.readsResource(operand, proof) { throw Self.unproven }
            return try Stdlib.unary(op, try evaluate(operand, scope, lexical: lexical))
        case .binary(.and, let lhs, let rhs):
            return try logical(isAnd: true, lhs, rhs, scope, lexical: lexical)
        case .binary(.or, let lhs, let rhs):
            return try logical(isAnd: false, lhs, rhs, scope, lexical: lexical)
        case .binary(let op, let lhs, let rhs):
            if let proof, !Self.isProvable(op, lhs, rhs, proof) { throw Self.unproven }
            let left = try evaluate(lhs, scope, lexical: lexical)
            let right = try evaluate(rhs, scope, lexical: lexical)
            if proof?.strictNumbers == true, Self.mixesNumbers(left, right) { throw Self.unproven }
            return try Stdlib.binary(op, left, right)
        case .ternary(let condition, let then, let otherwise):
            switch try evaluate(condition, scope, lexical: lexical) {
            case .bool(true): return try evaluate(then, scope, lexical: lexical)
            case .bool(false): return try evaluate(otherwise, scope, lexical: lexical)
            case let value: throw RuleError(.typeMismatch, "ternary condition must be a bool, got \(value.typeName)")
            }
        case .isType(let operand, let type):
            if let proof, Self.readsResource(operand, proof) { throw Self.unproven }
            return .bool(try evaluate(operand, scope, lexical: lexical).is(type))
        }
    }

    /// What a condition the official engine cannot prove for every document of a query gives.
    static let unproven = RuleError(.typeMismatch, "Unsupported operation error. The condition cannot be proven for every document the query admits.")

    /// Whether `expression` reads a part of `resource` that varies across the documents a query admits, or
    /// calls a function (which might); a field the query pins to one value (`==`) is a constant, so methods
    /// and arithmetic on it are provable, as the official engine proves them.
    static func readsResource(_ expression: Expression, _ proof: RulesProof) -> Bool {
        if let field = resourceField(expression), proof.pinned.contains(field) { return false }
        switch expression.kind {
        case .identifier("resource"): return true
        case .call(let callee, _) where !isMember(callee): return true
        default: return expression.kind.children.contains { readsResource($0, proof) }
        }
    }

    private static func isMember(_ expression: Expression) -> Bool {
        if case .member = expression.kind { return true }
        return false
    }

    /// The field of `resource` an expression names (`resource.data.f` → `["data", "f"]`), if it names one.
    private static func resourceField(_ expression: Expression) -> [String]? {
        switch expression.kind {
        case .member(let target, let name): return resourceField(target).map { $0 + [name] }
        case .index(let target, let index):
            guard case .string(let name) = index.kind else { return nil }
            return resourceField(target).map { $0 + [name] }
        case .identifier("resource"): return []
        default: return nil
        }
    }

    /// Whether the official engine can prove `lhs op rhs` for every document a query admits: an operation
    /// that does not read a varying part of `resource`, or a comparison of a field of it (`resource.data.f`)
    /// with something that does not (arithmetic on a ranged field, a method of it, two fields compared: not).
    private static func isProvable(_ op: BinaryOperator, _ lhs: Expression, _ rhs: Expression, _ proof: RulesProof) -> Bool {
        let (left, right) = (readsResource(lhs, proof), readsResource(rhs, proof))
        guard left || right else { return true }
        guard left != right, [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual, .in].contains(op) else { return false }
        return isField(left ? lhs : rhs, proof)
    }

    /// `resource` followed by members and constant indexes: `resource.data.f`, `resource.data['f']`.
    private static func isField(_ expression: Expression, _ proof: RulesProof) -> Bool {
        switch expression.kind {
        case .identifier("resource"): return true
        case .member(let target, _): return isField(target, proof)
        case .index(let target, let index): return !readsResource(index, proof) && isField(target, proof)
        default: return false
        }
    }

    /// An int and a float.
    private static func mixesNumbers(_ lhs: RuleValue, _ rhs: RuleValue) -> Bool {
        switch (lhs, rhs) {
        case (.int, .float), (.float, .int): return true
        default: return false
        }
    }

    /// `&&` and `||`: the left side decides if it can; an error on one side is absorbed when the other
    /// side decides; otherwise both must be booleans.
    private func logical(
        isAnd: Bool, _ lhs: Expression, _ rhs: Expression, _ scope: Scope, lexical: Int
    ) throws(RuleError) -> RuleValue {
        let decisive = !isAnd
        let left: Result<Bool, RuleError>
        do {
            switch try evaluate(lhs, scope, lexical: lexical) {
            case .bool(let value):
                if value == decisive { return .bool(decisive) }
                left = .success(value)
            case let value:
                left = .failure(RuleError(.typeMismatch, "\(isAnd ? "&&" : "||") operand must be a bool, got \(value.typeName)"))
            }
        } catch {
            left = .failure(error)
        }
        let right = try evaluate(rhs, scope, lexical: lexical)
        guard case .bool(let value) = right else {
            throw RuleError(.typeMismatch, "\(isAnd ? "&&" : "||") operand must be a bool, got \(right.typeName)")
        }
        if value == decisive { return .bool(decisive) }
        switch left {
        case .success: return .bool(value)
        case .failure(let error): throw error
        }
    }

    /// `target.name`: a map's key, else a property of the type.
    private func member(_ target: RuleValue, _ name: String) throws(RuleError) -> RuleValue {
        switch target {
        case .map(let map):
            guard let value = map[name] else { throw RuleError(.undefinedProperty, "Property \(name) is undefined on object.") }
            return value
        case .null:
            throw RuleError(.nullValue, "Null value error.")
        default:
            return try Stdlib.property(target, name)
        }
    }

    /// A path literal: text segments as written, `$(expr)` spliced (a path adds all its segments).
    private func path(_ segments: [PathLiteralSegment], _ scope: Scope, lexical: Int) throws(RuleError) -> RulePath {
        var result: [String] = []
        for segment in segments {
            switch segment {
            case .text(let text):
                if text.utf8.contains(UInt8(ascii: "/")) {
                    result.append(contentsOf: text.split(separator: "/").map(String.init))
                } else {
                    result.append(text)
                }
            case .interpolation(let expression):
                // An unbound name stays a `$(name)` placeholder for `path.bind()` to fill in.
                if case .identifier(let name) = expression.kind, !scope.contains(name) {
                    result.append("$(\(name))")
                    continue
                }
                switch try evaluate(expression, scope, lexical: lexical) {
                case .string(let text): result.append(text)
                case .int(let number): result.append(String(number))
                case .path(let path): result.append(contentsOf: path.segments)
                case let value: throw RuleError(.typeMismatch, "cannot use a \(value.typeName) in a path")
                }
            }
        }
        return RulePath(segments: result)
    }
}

/// What one decision accumulates while it evaluates: documents read and the current call depth.
final class EvaluationState {
    /// Distinct documents read so far (a handful at most, so a list beats hashing).
    var documentsRead: [RulePath] = []
    /// The user functions being evaluated, outermost first.
    var activeFunctions: [FunctionIdentity] = []
}

/// A user function, by the scope that declares it and its name.
struct FunctionIdentity: Equatable {
    var scope: Int
    var name: String
}
