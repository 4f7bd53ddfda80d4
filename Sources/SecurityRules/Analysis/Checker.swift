/// Compile-time checks: undefined variables, unknown functions, wrong argument counts, and recursion.
/// Findings are collected as diagnostics, never thrown.
struct Checker {
    let program: RuleProgram
    private(set) var diagnostics: [Diagnostic] = []

    /// Names every condition can use.
    static let globals: Set<String> = ["request", "resource"]

    init(program: RuleProgram) {
        self.program = program
    }

    /// Production's limits on functions (Firestore quotas).
    static let maximumParameters = 7
    static let maximumBindings = 10

    mutating func check() {
        for match in program.matches { check(match, wildcards: []) }
        for function in program.functions {
            let declaration = function.declaration
            let limits = [
                (declaration.parameters.count, Self.maximumParameters, "parameters"),
                (declaration.bindings.count, Self.maximumBindings, "let bindings"),
            ]
            for (count, limit, what) in limits where count > limit {
                diagnostics.append(
                    Diagnostic(
                        .error, "function '\(declaration.name)' has \(count) \(what); at most \(limit) are allowed",
                        fileName: function.fileName, at: declaration.location))
            }
        }
        for function in program.functions {
            var names = Set(function.declaration.parameters).union(wildcards(visibleFrom: function.scope))
            for binding in function.declaration.bindings {
                check(binding.value, names: names, lexical: function.scope, fileName: function.fileName)
                names.insert(binding.name)
            }
            check(function.declaration.body, names: names, lexical: function.scope, fileName: function.fileName)
        }
        checkRecursion()
        checkUnused()
        var types = TypeInference(program: program)
        types.check()
        diagnostics += types.diagnostics
    }

    /// Production's warnings for functions nothing calls and parameters a function never reads.
    private mutating func checkUnused() {
        var called: Set<Int> = []
        func collectCalls(in expression: Expression, from lexical: Int, excluding own: Int?) {
            var pending = [expression]
            while let node = pending.popLast() {
                if case .call(let callee, _) = node.kind, case .identifier(let name) = callee.kind,
                    let index = program.functionIndex(named: name, from: lexical), index != own
                {
                    called.insert(index)
                }
                pending += node.kind.children
            }
        }
        func visit(_ matches: [RuleProgram.Match]) {
            for match in matches {
                for allow in match.allows {
                    if let condition = allow.condition { collectCalls(in: condition, from: match.scope, excluding: nil) }
                }
                visit(match.children)
            }
        }
        visit(program.matches)
        for (index, function) in program.functions.enumerated() {
            for expression in function.declaration.bindings.map(\.value) + [function.declaration.body] {
                collectCalls(in: expression, from: function.scope, excluding: index)
            }
        }
        for (index, function) in program.functions.enumerated() {
            let declaration = function.declaration
            if !called.contains(index) {
                diagnostics.append(
                    Diagnostic(
                        .warning, "Unused function: \(declaration.name).", fileName: function.fileName,
                        at: declaration.nameLocation))
            }
            var used: Set<String> = []
            var pending = declaration.bindings.map(\.value) + [declaration.body]
            while let node = pending.popLast() {
                if case .identifier(let name) = node.kind { used.insert(name) }
                pending += node.kind.children
            }
            for (parameter, location) in zip(declaration.parameters, declaration.parameterLocations)
            where !used.contains(parameter) {
                diagnostics.append(
                    Diagnostic(.warning, "Unused variable: \(parameter).", fileName: function.fileName, at: location))
            }
        }
    }

    /// The wildcard names bound by the blocks enclosing lexical scope `scope`.
    private func wildcards(visibleFrom scope: Int) -> Set<String> {
        var names: Set<String> = []
        func collect(_ blocks: [RuleProgram.Match], _ inherited: Set<String>) {
            for block in blocks {
                let here = inherited.union(block.pattern.compactMap(\.variableName))
                if block.scope == scope { names.formUnion(here) }
                collect(block.children, here)
            }
        }
        collect(program.matches, [])
        return names
    }

    private mutating func check(_ match: RuleProgram.Match, wildcards inherited: Set<String>) {
        let names = inherited.union(match.pattern.compactMap(\.variableName))
        for allow in match.allows {
            if let condition = allow.condition {
                check(condition, names: names, lexical: match.scope, fileName: allow.fileName)
            }
        }
        for child in match.children { check(child, wildcards: names) }
    }

    private mutating func check(_ expression: Expression, names: Set<String>, lexical: Int, fileName: String) {
        func visit(_ node: Expression) {
            switch node.kind {
            case .null, .bool, .int, .float, .string, .bytes: break
            case .list(let items): items.forEach(visit)
            case .map(let entries):
                for entry in entries {
                    visit(entry.key)
                    visit(entry.value)
                }
            case .path(let segments):
                for case .interpolation(let inner) in segments { visit(inner) }
            case .identifier(let name):
                if !names.contains(name), !Self.globals.contains(name) {
                    report(.warning, "Invalid variable name: \(name).", node)
                }
            case .member(let target, _): visit(target)
            case .index(let target, let index):
                visit(target)
                visit(index)
            case .slice(let target, let from, let to):
                visit(target)
                from.map(visit)
                to.map(visit)
            case .call(let callee, let arguments):
                checkCall(callee, arguments.count, names: names, lexical: lexical, fileName: fileName, at: node)
                // A literal pattern of `matches` is compiled with the rules, as the official compiler does.
                if case .member(_, "matches") = callee.kind, case .string(let pattern)? = arguments.first?.kind,
                    (try? RulesRegex.compile(pattern)) == nil
                {
                    report(.error, "Invalid regular expression pattern. Pattern: \(pattern).", node)
                }
                if case .member(let target, _) = callee.kind, !isNamespace(target, names) { visit(target) }
                arguments.forEach(visit)
            case .unary(_, let operand): visit(operand)
            case .binary(_, let lhs, let rhs):
                visit(lhs)
                visit(rhs)
            case .ternary(let condition, let then, let otherwise):
                visit(condition)
                visit(then)
                visit(otherwise)
            case .isType(let operand, _): visit(operand)
            }
        }
        func report(_ severity: Diagnostic.Severity, _ message: String, _ node: Expression) {
            diagnostics.append(Diagnostic(severity, message, fileName: fileName, at: node.location))
        }
        visit(expression)
    }

    private func isNamespace(_ target: Expression, _ names: Set<String>) -> Bool {
        guard case .identifier(let name) = target.kind else { return false }
        return !names.contains(name) && !Self.globals.contains(name)
    }

    /// A call of a user, global or namespaced function: unknown names and wrong argument counts are
    /// warnings, as the official compiler gives them (the rules load; such a call fails when evaluated).
    /// Methods are checked with their receiver's type (`TypeInference`).
    private mutating func checkCall(
        _ callee: Expression, _ count: Int, names: Set<String>, lexical: Int, fileName: String, at node: Expression
    ) {
        func warn(_ message: String, at location: SourceLocation) {
            diagnostics.append(Diagnostic(.warning, message, fileName: fileName, at: location))
        }
        switch callee.kind {
        case .identifier(let name):
            let arity = program.function(named: name, from: lexical).map { $0.declaration.parameters.count...$0.declaration.parameters.count }
                ?? Evaluator.arity(ofFunction: name)
            if let arity {
                if !arity.contains(count) { warn("Incorrect number of arguments supplied to function: \(name).", at: node.location) }
            } else {
                warn("Invalid function name: \(name).", at: node.location)
            }
        case .member(let target, let name):
            guard isNamespace(target, names), case .identifier(let namespace) = target.kind else { return }
            let qualified = "\(namespace).\(name)"
            let location = program.anchors[callee.id] ?? node.location
            if let arity = Evaluator.arity(ofFunction: qualified) {
                if !arity.contains(count) { warn("Incorrect number of arguments supplied to function: \(qualified).", at: location) }
            } else if Stdlib.namespaces.contains(namespace) || namespace == "firestore" {
                warn("Invalid function name: \(qualified).", at: location)
            } else {
                warn("Invalid variable name: \(namespace).", at: node.location)
            }
        default:
            break
        }
    }

    /// Functions that call themselves, directly or through others: production allows no recursive or
    /// cyclical calls, so such a call fails at run time; warn where the cycle starts.
    private mutating func checkRecursion() {
        var calls: [[Int]] = []
        for function in program.functions {
            var callees: [Int] = []
            var expressions = function.declaration.bindings.map(\.value) + [function.declaration.body]
            while let node = expressions.popLast() {
                if case .call(let callee, _) = node.kind, case .identifier(let name) = callee.kind,
                    let index = program.functionIndex(named: name, from: function.scope)
                {
                    callees.append(index)
                }
                expressions += node.kind.children
            }
            calls.append(callees)
        }
        for start in program.functions.indices {
            var seen: Set<Int> = []
            var stack = calls[start]
            while let next = stack.popLast() {
                if next == start {
                    let function = program.functions[start]
                    diagnostics.append(
                        Diagnostic(
                            .warning,
                            "function '\(function.declaration.name)' is recursive; recursive and cyclical calls are not allowed and fail when evaluated",
                            fileName: function.fileName, at: function.declaration.location))
                    break
                }
                if seen.insert(next).inserted { stack += calls[next] }
            }
        }
    }
}

extension PathPatternSegment {
    /// The variable a wildcard segment binds.
    var variableName: String? {
        switch self {
        case .literal: return nil
        case .variable(let name), .recursive(let name): return name
        }
    }
}

extension ExpressionKind {
    /// The direct sub-expressions.
    var children: [Expression] {
        switch self {
        case .null, .bool, .int, .float, .string, .bytes, .identifier: return []
        case .list(let items): return items
        case .map(let entries): return entries.flatMap { [$0.key, $0.value] }
        case .path(let segments):
            return segments.compactMap { if case .interpolation(let inner) = $0 { return inner } else { return nil } }
        case .member(let target, _): return [target]
        case .index(let target, let index): return [target, index]
        case .slice(let target, let from, let to): return [target] + [from, to].compactMap { $0 }
        case .call(let callee, let arguments): return [callee] + arguments
        case .unary(_, let operand): return [operand]
        case .binary(_, let lhs, let rhs): return [lhs, rhs]
        case .ternary(let a, let b, let c): return [a, b, c]
        case .isType(let operand, _): return [operand]
        }
    }
}
