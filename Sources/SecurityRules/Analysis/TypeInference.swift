/// The official rules compiler's static type warnings, as Google's Firestore emulator gives them when rules
/// are loaded (`:securityRules` issues, `hearth rules check`): an operand whose type is known and cannot be
/// used there (`[1] + [2]`: "Invalid type. Received one of [list]. Expected one of [int, float, string,
/// duration, timestamp]."), an `==` whose sides can never be equal, a permission statement that is not a
/// boolean, a method no type has or a call with an argument count no overload takes. Warnings only: the
/// rules still load, and the evaluator reports the error if such an expression runs.
///
/// Types are inferred only where the compiler knows them: literals, operators, the standard library's
/// results, wildcards (strings; `{x=**}` paths), `let`s, and user functions at each call, from the types of
/// the arguments (a warning then points at the expression a type came from, as the official compiler's
/// does). `request` and `resource` fields, map values and list elements are unknown and never warned about.
struct TypeInference {
    let program: RuleProgram
    private(set) var diagnostics: [Diagnostic] = []
    private var fileName = ""
    /// Whether findings are reported (not while a function body is inferred for a call's result, but for
    /// the types that came from the call's arguments: those point at the arguments).
    private var reporting = true
    /// Where the arguments of the calls being inferred are.
    private var argumentOrigins: Set<SourceLocation> = []
    /// How deep in an expression inference is: below `maximumDepth` nodes it stops (types unknown), so a
    /// deeply nested condition (the parser allows 1,000 levels) is checked on a small stack.
    private var depth = 0
    private static let maximumDepth = 48
    /// The user functions being inferred, innermost last (no recursion, bounded depth).
    private var active: [Int] = []

    init(program: RuleProgram) {
        self.program = program
    }

    /// A known type: which types the value can have, and the expression warnings about it point at.
    struct Typed {
        var types: StaticTypes
        var origin: SourceLocation
        /// The wildcard the value is, when it is one.
        var variable: String? = nil
    }

    /// Names in scope: a type for each local that has a known one (`nil` entries are unknown).
    typealias Environment = [String: Typed?]

    /// Checks every allow condition and function body of the program.
    mutating func check() {
        // Match blocks nest up to the parser's limit: walked with a work list, not recursion.
        var pending: [(match: RuleProgram.Match, wildcards: Environment)] = program.matches.reversed().map { ($0, [:]) }
        while let (match, wildcards) = pending.popLast() {
            var names = wildcards
            for segment in match.pattern {
                switch segment {
                case .literal: break
                case .variable(let name): names[name] = Typed(types: .string, origin: Self.atUse)
                case .recursive(let name): names[name] = Typed(types: .path, origin: Self.atUse)
                }
            }
            for allow in match.allows {
                guard let condition = allow.condition else { continue }
                fileName = allow.fileName
                checkPermission(condition, names, lexical: match.scope)
            }
            pending += match.children.reversed().map { ($0, names) }
        }
        for function in program.functions {
            fileName = function.fileName
            var names: Environment = [:]
            for parameter in function.declaration.parameters { names[parameter] = .some(nil) }
            for binding in function.declaration.bindings {
                names[binding.name] = .some(infer(binding.value, names, lexical: function.scope))
            }
            _ = infer(function.declaration.body, names, lexical: function.scope)
        }
    }

    /// The origin of a wildcard's type: wherever the wildcard is used.
    private static let atUse = SourceLocation(line: 0, column: 0)

    // MARK: Checks

    /// A permission statement's condition must be a boolean (a conditional's two branches each).
    private mutating func checkPermission(_ condition: Expression, _ names: Environment, lexical: Int) {
        if case .ternary(let test, let then, let otherwise) = condition.kind {
            // The branches of a conditional are checked as operands that must be booleans.
            expect(test, names, lexical: lexical, .bool)
            expect(then, names, lexical: lexical, .bool)
            expect(otherwise, names, lexical: lexical, .bool)
            return
        }
        guard let typed = infer(condition, names, lexical: lexical), !typed.types.contains(.bool) else { return }
        warn("Invalid type. Permission statements expect a boolean value. Received one of [\(typed.types)].", at: typed.origin)
    }

    /// Infers `expression` and warns when its known type is none of `expected`; returns the inferred type.
    @discardableResult
    private mutating func expect(
        _ expression: Expression, _ names: Environment, lexical: Int, _ expected: Expectation
    ) -> Typed? {
        let typed = infer(expression, names, lexical: lexical)
        if let typed { check(typed, expected) }
        return typed
    }

    private mutating func check(_ typed: Typed, _ expected: Expectation) {
        guard typed.types.isDisjoint(with: expected.types) else { return }
        warn("Invalid type. Received one of [\(typed.types)]. Expected one of [\(expected.listed)].", at: typed.origin)
        if let variable = typed.variable {
            warn("Invalid type. There is no type for variable '\(variable)' that satisfies all clauses.", at: typed.origin)
        }
    }

    private mutating func warn(_ message: String, at location: SourceLocation) {
        guard reporting || argumentOrigins.contains(location), location.line > 0 else { return }
        let diagnostic = Diagnostic(.warning, message, fileName: fileName, at: location)
        if !diagnostics.contains(diagnostic) { diagnostics.append(diagnostic) }
    }

    // MARK: Inference

    /// The type of `expression`, when known, checking its operands on the way.
    private mutating func infer(_ expression: Expression, _ names: Environment, lexical: Int) -> Typed? {
        guard depth < Self.maximumDepth else { return nil }
        depth += 1
        defer { depth -= 1 }
        return inferNode(expression, names, lexical: lexical)
    }

    @inline(never)
    private mutating func inferNode(_ expression: Expression, _ names: Environment, lexical: Int) -> Typed? {
        let here = expression.location
        switch expression.kind {
        case .null: return Typed(types: .null, origin: here)
        case .bool: return Typed(types: .bool, origin: here)
        case .int: return Typed(types: .int, origin: here)
        case .float: return Typed(types: .float, origin: here)
        case .string: return Typed(types: .string, origin: here)
        case .bytes: return Typed(types: .bytes, origin: here)
        case .list(let items):
            for item in items { _ = infer(item, names, lexical: lexical) }
            return Typed(types: .list, origin: here)
        case .map(let entries):
            for entry in entries {
                _ = infer(entry.key, names, lexical: lexical)
                _ = infer(entry.value, names, lexical: lexical)
            }
            return Typed(types: .map, origin: here)
        case .path(let segments):
            for case .interpolation(let inner) in segments { _ = infer(inner, names, lexical: lexical) }
            return Typed(types: .path, origin: here)
        case .identifier(let name):
            guard let local = names[name] else { return nil }
            // A wildcard's type points at where it is used; an argument's at the argument.
            return local.map { $0.origin == Self.atUse ? Typed(types: $0.types, origin: here, variable: name) : $0 }
        case .member(let target, _):
            if case .identifier(let name) = target.kind, names[name] == nil { return nil }  // a namespace or global
            _ = infer(target, names, lexical: lexical)
            return nil
        case .index(let target, let index):
            expect(target, names, lexical: lexical, .indexable)
            _ = infer(index, names, lexical: lexical)
            return nil
        case .slice(let target, let from, let to):
            let typed = infer(target, names, lexical: lexical)
            for bound in [from, to].compactMap({ $0 }) { _ = infer(bound, names, lexical: lexical) }
            return typed.flatMap { $0.types.isSubset(of: [.list, .string]) ? Typed(types: $0.types, origin: here) : nil }
        case .call(let callee, let arguments):
            return inferCall(expression, callee, arguments, names, lexical: lexical)
        case .unary(let op, let operand):
            switch op {
            case .not:
                expect(operand, names, lexical: lexical, .bool)
                return Typed(types: .bool, origin: here)
            case .negate:
                guard let typed = expect(operand, names, lexical: lexical, .negatable) else { return nil }
                let types = typed.types.intersection(Expectation.negatable.types)
                return Typed(types: types.isEmpty ? Expectation.negatable.types : types, origin: here)
            }
        case .binary(let op, let lhs, let rhs):
            return inferBinary(op, lhs, rhs, at: program.anchors[expression.id] ?? here, names, lexical: lexical)
        case .ternary(let test, let then, let otherwise):
            expect(test, names, lexical: lexical, .bool)
            _ = infer(then, names, lexical: lexical)
            _ = infer(otherwise, names, lexical: lexical)
            return nil
        case .isType(let operand, _):
            _ = infer(operand, names, lexical: lexical)
            return Typed(types: .bool, origin: here)
        }
    }

    private mutating func inferBinary(
        _ op: BinaryOperator, _ lhs: Expression, _ rhs: Expression, at anchor: SourceLocation, _ names: Environment,
        lexical: Int
    ) -> Typed? {
        switch op {
        case .and, .or:
            expect(lhs, names, lexical: lexical, .bool)
            expect(rhs, names, lexical: lexical, .bool)
            return Typed(types: .bool, origin: anchor)
        case .equal, .notEqual:
            let left = infer(lhs, names, lexical: lexical)
            let right = infer(rhs, names, lexical: lexical)
            if let left, let right, !Self.comparable(left.types, right.types) {
                warn("The sub-expressions are not comparable, so this comparison will always return false.", at: anchor)
            }
            return Typed(types: .bool, origin: anchor)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            _ = infer(lhs, names, lexical: lexical)
            _ = infer(rhs, names, lexical: lexical)
            return Typed(types: .bool, origin: anchor)
        case .in:
            _ = infer(lhs, names, lexical: lexical)
            expect(rhs, names, lexical: lexical, .container)
            return Typed(types: .bool, origin: anchor)
        case .add, .subtract, .multiply, .divide, .remainder:
            let expected: Expectation = op == .add ? .addable : op == .subtract ? .subtractable : .numeric
            let left = expect(lhs, names, lexical: lexical, expected)
            let right = expect(rhs, names, lexical: lexical, expected)
            guard let left, let right else { return nil }
            let types = left.types.union(right.types).intersection(expected.types)
            return Typed(types: types.isEmpty ? expected.types : types, origin: anchor)
        }
    }

    private mutating func inferCall(
        _ call: Expression, _ callee: Expression, _ arguments: [Expression], _ names: Environment, lexical: Int
    ) -> Typed? {
        switch callee.kind {
        case .identifier(let name):
            if let index = program.functionIndex(named: name, from: lexical) {
                let argumentTypes = arguments.map { infer($0, names, lexical: lexical) }
                return inferUser(index, argumentTypes, at: call.location)
            }
            return inferLibrary(name, arguments, at: call.location, names, lexical: lexical)
        case .member(let target, let name):
            if case .identifier(let namespace) = target.kind, names[namespace] == nil, namespace != "request",
                namespace != "resource"
            {
                return inferLibrary("\(namespace).\(name)", arguments, at: program.anchors[callee.id] ?? call.location, names, lexical: lexical)
            }
            let receiver = infer(target, names, lexical: lexical)
            return inferMethod(name, on: receiver, arguments, at: program.anchors[callee.id] ?? call.location, names, lexical: lexical)
        default:
            for argument in arguments { _ = infer(argument, names, lexical: lexical) }
            return nil
        }
    }

    /// A user function's result for arguments of these types: its body inferred with them (findings in the
    /// body are reported once, when the body itself is checked).
    private mutating func inferUser(_ index: Int, _ arguments: [Typed?], at location: SourceLocation) -> Typed? {
        let function = program.functions[index]
        let declaration = function.declaration
        guard arguments.count == declaration.parameters.count, !active.contains(index), active.count < 8 else { return nil }
        active.append(index)
        let wasReporting = reporting
        let outerOrigins = argumentOrigins
        reporting = false
        if wasReporting { argumentOrigins.formUnion(arguments.compactMap { $0?.origin }) }
        defer {
            active.removeLast()
            reporting = wasReporting
            argumentOrigins = outerOrigins
        }
        var names: Environment = [:]
        for (parameter, argument) in zip(declaration.parameters, arguments) { names[parameter] = .some(argument) }
        for binding in declaration.bindings {
            names[binding.name] = .some(infer(binding.value, names, lexical: function.scope))
        }
        return infer(declaration.body, names, lexical: function.scope)
    }

    /// A global or namespaced function of the standard library (or a data function).
    private mutating func inferLibrary(
        _ name: String, _ arguments: [Expression], at location: SourceLocation, _ names: Environment, lexical: Int
    ) -> Typed? {
        let signature = Self.functions[name]
        inferArguments(arguments, expecting: signature?.parameters ?? [], names, lexical: lexical)
        // With the wrong number of arguments the result is unknown.
        guard Evaluator.arity(ofFunction: name)?.contains(arguments.count) ?? false else { return nil }
        return signature?.returns.map { Typed(types: $0, origin: location) }
    }

    /// A method: its arguments against what it takes, its result; unknown names and argument counts no
    /// overload (of the receiver's type, when known) takes are warned about.
    private mutating func inferMethod(
        _ name: String, on receiver: Typed?, _ arguments: [Expression], at location: SourceLocation, _ names: Environment,
        lexical: Int
    ) -> Typed? {
        let signature = Self.methods[name]
        inferArguments(arguments, expecting: signature?.parameters ?? [], names, lexical: lexical)
        guard let arity = Stdlib.methodArity(name, on: receiver?.types) else {
            warn("Invalid function name: \(name).", at: location)
            return nil
        }
        if !arity.contains(arguments.count) {
            warn("Incorrect number of arguments supplied to function: \(name).", at: location)
        }
        return signature?.returns.map { Typed(types: $0, origin: location) }
    }

    /// Infers each argument, checking those the callee has an expectation for.
    private mutating func inferArguments(
        _ arguments: [Expression], expecting parameters: [Expectation?], _ names: Environment, lexical: Int
    ) {
        for (index, argument) in arguments.enumerated() {
            if index < parameters.count, let expected = parameters[index] {
                expect(argument, names, lexical: lexical, expected)
            } else {
                _ = infer(argument, names, lexical: lexical)
            }
        }
    }

    /// Whether values of these types can ever be equal (numbers compare across int and float).
    private static func comparable(_ a: StaticTypes, _ b: StaticTypes) -> Bool {
        !a.isDisjoint(with: b) || (!a.isDisjoint(with: [.int, .float]) && !b.isDisjoint(with: [.int, .float]))
    }
}

extension TypeInference {
    /// What a function or method takes (an expectation per argument, `nil`: anything) and returns.
    struct Signature {
        var parameters: [Expectation?]
        var returns: StaticTypes?
    }

    /// The global, namespaced and data functions whose argument or result types are known.
    static let functions: [String: Signature] = [
        "int": Signature(parameters: [nil], returns: .int),
        "float": Signature(parameters: [nil], returns: .float),
        "string": Signature(parameters: [nil], returns: .string),
        "path": Signature(parameters: [.string], returns: .path),
        "get": Signature(parameters: [.path], returns: nil),
        "getAfter": Signature(parameters: [.path], returns: nil),
        "exists": Signature(parameters: [.path], returns: nil),
        "existsAfter": Signature(parameters: [.path], returns: nil),
        "firestore.get": Signature(parameters: [.path], returns: nil),
        "firestore.exists": Signature(parameters: [.path], returns: nil),
        "math.abs": Signature(parameters: [.numeric], returns: [.int, .float]),
        "math.ceil": Signature(parameters: [.numeric], returns: .float),
        "math.floor": Signature(parameters: [.numeric], returns: .float),
        "math.round": Signature(parameters: [.numeric], returns: .float),
        "math.sqrt": Signature(parameters: [.numeric], returns: .float),
        "math.pow": Signature(parameters: [.numeric, .numeric], returns: .float),
        "math.isNaN": Signature(parameters: [.numeric], returns: .bool),
        "duration.value": Signature(parameters: [.integer, .string], returns: .duration),
        "duration.time": Signature(parameters: [.integer, .integer, .integer, .integer], returns: .duration),
        "duration.abs": Signature(parameters: [nil], returns: .duration),
        "timestamp.value": Signature(parameters: [.integer], returns: .timestamp),
        "timestamp.date": Signature(parameters: [.integer, .integer, .integer], returns: .timestamp),
        "latlng.value": Signature(parameters: [.numeric, .numeric], returns: .latlng),
        "hashing.crc32": Signature(parameters: [.hashable], returns: .int),
        "hashing.crc32c": Signature(parameters: [.hashable], returns: .int),
        "hashing.md5": Signature(parameters: [.hashable], returns: .bytes),
        "hashing.sha256": Signature(parameters: [.hashable], returns: .bytes),
    ]

    /// Methods whose argument or result types are known, by name (whatever the receiver).
    static let methods: [String: Signature] = [
        "size": Signature(parameters: [], returns: .int),
        "matches": Signature(parameters: [.string], returns: .bool),
        "lower": Signature(parameters: [], returns: .string),
        "upper": Signature(parameters: [], returns: .string),
        "trim": Signature(parameters: [], returns: .string),
        "split": Signature(parameters: [.string], returns: .list),
        "replace": Signature(parameters: [.string, .string], returns: .string),
        "toUtf8": Signature(parameters: [], returns: .bytes),
        "keys": Signature(parameters: [], returns: .list),
        "values": Signature(parameters: [], returns: .list),
        "hasAll": Signature(parameters: [.collection], returns: .bool),
        "hasAny": Signature(parameters: [.collection], returns: .bool),
        "hasOnly": Signature(parameters: [.collection], returns: .bool),
        "toSet": Signature(parameters: [], returns: .set),
        "union": Signature(parameters: [.set], returns: .set),
        "intersection": Signature(parameters: [.set], returns: .set),
        "difference": Signature(parameters: [.set], returns: .set),
        "join": Signature(parameters: [.string], returns: .string),
        "diff": Signature(parameters: [nil], returns: .mapDiff),
        "affectedKeys": Signature(parameters: [], returns: .set),
        "addedKeys": Signature(parameters: [], returns: .set),
        "removedKeys": Signature(parameters: [], returns: .set),
        "changedKeys": Signature(parameters: [], returns: .set),
        "unchangedKeys": Signature(parameters: [], returns: .set),
        "toMillis": Signature(parameters: [], returns: .int),
        "toBase64": Signature(parameters: [], returns: .string),
        "toHexString": Signature(parameters: [], returns: .string),
        "latitude": Signature(parameters: [], returns: .float),
        "longitude": Signature(parameters: [], returns: .float),
    ]
}

/// Sets of the rules language's types, for static inference; listed in a fixed order.
struct StaticTypes: OptionSet, Hashable, Sendable, CustomStringConvertible {
    let rawValue: UInt32

    static let null = StaticTypes(rawValue: 1 << 0)
    static let bool = StaticTypes(rawValue: 1 << 1)
    static let int = StaticTypes(rawValue: 1 << 2)
    static let float = StaticTypes(rawValue: 1 << 3)
    static let string = StaticTypes(rawValue: 1 << 4)
    static let bytes = StaticTypes(rawValue: 1 << 5)
    static let duration = StaticTypes(rawValue: 1 << 6)
    static let timestamp = StaticTypes(rawValue: 1 << 7)
    static let latlng = StaticTypes(rawValue: 1 << 8)
    static let list = StaticTypes(rawValue: 1 << 9)
    static let set = StaticTypes(rawValue: 1 << 10)
    static let map = StaticTypes(rawValue: 1 << 11)
    static let mapDiff = StaticTypes(rawValue: 1 << 12)
    static let path = StaticTypes(rawValue: 1 << 13)
    static let constraint = StaticTypes(rawValue: 1 << 14)

    private static let names: [(StaticTypes, String)] = [
        (.null, "null"), (.bool, "bool"), (.int, "int"), (.float, "float"), (.string, "string"), (.bytes, "bytes"),
        (.duration, "duration"), (.timestamp, "timestamp"), (.latlng, "latlng"), (.list, "list"), (.set, "set"),
        (.map, "map"), (.mapDiff, "map_diff"), (.path, "path"), (.constraint, "constraint"),
    ]

    /// The type by its name in the official messages.
    static func named(_ name: String) -> StaticTypes {
        names.first { $0.1 == name }?.0 ?? []
    }

    /// `int, float`, in the fixed order.
    var description: String {
        Self.names.filter { contains($0.0) }.map(\.1).joined(separator: ", ")
    }
}

/// The types an operand or argument may have, listed as the official compiler lists them.
struct Expectation {
    let types: StaticTypes
    let listed: String

    init(_ names: String...) {
        types = names.reduce([]) { $0.union(StaticTypes.named($1)) }
        listed = names.joined(separator: ", ")
    }

    static let bool = Expectation("bool")
    static let string = Expectation("string")
    static let integer = Expectation("int")
    static let path = Expectation("path")
    static let set = Expectation("set")
    static let numeric = Expectation("int", "float")
    static let addable = Expectation("int", "float", "string", "duration", "timestamp")
    static let subtractable = Expectation("int", "float", "duration", "timestamp")
    static let negatable = Expectation("int", "float", "duration")
    static let container = Expectation("list", "set", "map", "constraint")
    static let indexable = Expectation("string", "list", "map", "path")
    static let collection = Expectation("list", "set")
    static let hashable = Expectation("bytes", "string")
}
