extension Evaluator {
    /// Functions the evaluator itself provides (they need the request's data or its debug sink).
    static let dataFunctions: [String: ClosedRange<Int>] = [
        "get": 1...1, "exists": 1...1, "getAfter": 1...1, "existsAfter": 1...1, "debug": 1...1,
        "firestore.get": 1...1, "firestore.exists": 1...1,
    ]

    /// The argument counts a global or namespaced function (`int`, `math.abs`, `get`) takes; `nil` when
    /// there is no such function.
    static func arity(ofFunction name: String) -> ClosedRange<Int>? {
        dataFunctions[name] ?? Stdlib.functionArities[name]
    }

    /// `f(args)`, `namespace.f(args)` or `value.method(args)`.
    func call(_ callee: Expression, _ arguments: [Expression], _ scope: Scope, lexical: Int) throws(RuleError)
        -> RuleValue
    {
        switch callee.kind {
        case .identifier(let name):
            if let function = program.function(named: name, from: lexical) {
                return try callUser(function, arguments, scope, lexical: lexical)
            }
            let values = try evaluateAll(arguments, scope, lexical: lexical)
            if let value = try builtin(namespace: nil, name, values) { return value }
            throw RuleError(.functionNotFound, "Function not found error: Name: [\(name)].")
        case .member(let target, let name):
            if case .identifier(let namespace) = target.kind, !scope.contains(namespace) {
                let values = try evaluateAll(arguments, scope, lexical: lexical)
                if let value = try builtin(namespace: namespace, name, values) { return value }
                throw RuleError(.functionNotFound, "Function not found error: Name: [\(namespace).\(name)].")
            }
            let receiver = try evaluate(target, scope, lexical: lexical)
            return try Stdlib.method(receiver, name, try evaluateAll(arguments, scope, lexical: lexical))
        default:
            throw RuleError(.functionNotFound, "expression is not callable")
        }
    }

    private func evaluateAll(_ expressions: [Expression], _ scope: Scope, lexical: Int) throws(RuleError) -> [RuleValue] {
        var values: [RuleValue] = []
        values.reserveCapacity(expressions.count)
        for expression in expressions { values.append(try evaluate(expression, scope, lexical: lexical)) }
        return values
    }

    /// Calls a user function: arguments in the caller's scope, body and `let`s in the function's, which
    /// sees the request's globals and wildcards but not the caller's locals.
    private func callUser(
        _ function: RuleProgram.Function, _ arguments: [Expression], _ scope: Scope, lexical: Int
    ) throws(RuleError) -> RuleValue {
        let declaration = function.declaration
        guard arguments.count == declaration.parameters.count else {
            throw RuleError(
                .argumentCount,
                "function \(declaration.name) takes \(declaration.parameters.count) arguments, got \(arguments.count)")
        }
        var inner = globals
        for (name, argument) in zip(declaration.parameters, arguments) {
            inner.bind(name, try evaluate(argument, scope, lexical: lexical))
        }
        guard state.activeFunctions.count < Self.maximumCallDepth else {
            throw RuleError(.callLimit, "Maximum function call depth (\(Self.maximumCallDepth)) exceeded.")
        }
        let identity = FunctionIdentity(scope: function.scope, name: declaration.name)
        guard !state.activeFunctions.contains(identity) else {
            throw RuleError(.callLimit, "Recursive call of function '\(declaration.name)': recursive and cyclical calls are not allowed.")
        }
        state.activeFunctions.append(identity)
        defer { state.activeFunctions.removeLast() }
        // A `let` that fails fails only where it is used (the official engine evaluates them lazily).
        for binding in declaration.bindings {
            let scope = inner
            inner.bind(binding.name, Result { () throws(RuleError) in try evaluate(binding.value, scope, lexical: function.scope) })
        }
        return try evaluate(declaration.body, inner, lexical: function.scope)
    }

    /// A built-in function; `nil` if there is none by that name.
    private func builtin(namespace: String?, _ name: String, _ values: [RuleValue]) throws(RuleError) -> RuleValue? {
        switch (namespace, name) {
        case (nil, "get") where program.service == .firestore:
            // A missing document is an evaluation error, as the official engine answers (exists() tells).
            guard let document = try read(values, after: false) else { throw Self.missing("get", values) }
            return document
        case ("firestore", "get") where program.service == .storage:
            return try read(values, after: false) ?? .null
        case (nil, "exists") where program.service == .firestore, ("firestore", "exists") where program.service == .storage:
            return .bool(try read(values, after: false) != nil)
        case (nil, "getAfter") where program.service == .firestore:
            guard let document = try read(values, after: true) else { throw Self.missing("getAfter", values) }
            return document
        case (nil, "existsAfter") where program.service == .firestore:
            return .bool(try read(values, after: true) != nil)
        case (nil, "debug"):
            guard values.count == 1 else { throw RuleError(.argumentCount, "debug takes 1 argument") }
            debug?(String(describing: values[0]))
            return values[0]
        default:
            return try Stdlib.function(namespace: namespace, name, values)
        }
    }

    /// The official engine's error for `function` reading a document that does not exist.
    private static func missing(_ function: String, _ values: [RuleValue]) -> RuleError {
        RuleError(.documentAccess, "Service call error. Function: [\(function)], Argument: [\(values.first.map(String.init(describing:)) ?? "")].")
    }

    /// Reads a document for `get`/`exists` (and `...After`), counting it against the request's limit
    /// (the same document read twice counts once).
    private func read(_ values: [RuleValue], after: Bool) throws(RuleError) -> RuleValue? {
        guard values.count == 1 else { throw RuleError(.argumentCount, "expected 1 argument, got \(values.count)") }
        let path: RulePath
        switch values[0] {
        case .path(let value): path = value
        case .string(let text): path = RulePath(text)
        case let value: throw RuleError(.typeMismatch, "get/exists need a path, got \(value.typeName)")
        }
        guard path.segments.count >= 5, path.segments.count % 2 == 1, path.segments[0] == "databases",
            path.segments[2] == "documents"
        else {
            throw RuleError(.documentAccess, "Path \(path) is not a document path (/databases/{database}/documents/{collection}/{id}...).")
        }
        if !state.documentsRead.contains(path) {
            guard state.documentsRead.count < accessLimit else {
                throw RuleError(.documentAccess, "Exceeded maximum of \(accessLimit) document access calls per request.")
            }
            state.documentsRead.append(path)
        }
        return after ? data.documentAfter(at: path) : data.document(at: path)
    }
}
