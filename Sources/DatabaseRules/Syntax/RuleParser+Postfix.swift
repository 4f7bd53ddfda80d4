/// Primaries (literals, variables, parentheses, lists) and what follows them: members, methods, indexes.
extension RuleParser {
    mutating func parsePostfix() throws(DatabaseRulesError) -> TypedExpression {
        var value = try parsePrimary()
        while true {
            if isSymbol(".") {
                try advance()
                guard case .identifier(let name) = token.kind else {
                    throw error("Expected a property or method name after '.'.", at: token.start)
                }
                let nameStart = token.start
                try advance()
                if isSymbol("(") {
                    value = try parseCall(on: value, name: name, at: nameStart)
                } else {
                    value = try property(name, of: value, at: nameStart)
                }
            } else if isSymbol("[") {
                let bracket = token.start
                try advance()
                let key = try parseConditional()
                try expect("]")
                // `x["name"](…)` calls a method, as `x.name(…)` does.
                if isSymbol("("), case .literal(.string(let name)) = key.expression {
                    value = try parseCall(on: value, name: name, at: bracket)
                    continue
                }
                guard value.type == .any else {
                    throw error("Type error: a \(value.type.name) cannot be indexed with [].", at: bracket)
                }
                try require(key, in: [.string, .number], for: "[]")
                value = TypedExpression(expression: .index(value.expression, key.expression), type: .any, start: value.start)
            } else if isSymbol("(") {
                throw error("Type error: only methods can be called.", at: token.start)
            } else {
                return value
            }
        }
    }

    private mutating func parsePrimary() throws(DatabaseRulesError) -> TypedExpression {
        let start = token.start
        switch token.kind {
        case .number(let number):
            try advance()
            return TypedExpression(expression: .literal(.number(number)), type: .number, start: start)
        case .string(let string):
            try advance()
            return TypedExpression(expression: .literal(.string(string)), type: .string, start: start)
        case .identifier(let name):
            try advance()
            return try variable(name, at: start)
        case .symbol("("):
            try advance()
            var inner = try parseConditional()
            try expect(")")
            inner.start = start
            return inner
        case .symbol("["):
            try advance()
            var elements: [RuleExpression] = []
            while !isSymbol("]") {
                let element = try parseConditional()
                try require(element, in: [.string], for: "[]")
                elements.append(element.expression)
                guard isSymbol(",") else { break }
                try advance()
            }
            try expect("]")
            return TypedExpression(expression: .list(elements), type: .list, start: start)
        case .symbol("/"):
            throw error("A regular expression literal may only be the argument of matches().", at: start)
        default:
            throw unexpected()
        }
    }

    private func variable(_ name: String, at start: Int) throws(DatabaseRulesError) -> TypedExpression {
        func typed(_ expression: RuleExpression, _ type: StaticType) -> TypedExpression {
            TypedExpression(expression: expression, type: type, start: start)
        }
        switch name {
        case "true": return typed(.literal(.bool(true)), .boolean)
        case "false": return typed(.literal(.bool(false)), .boolean)
        case "null": return typed(.literal(.null), .null)
        case "auth": return typed(.variable(.auth), .any)
        case "root": return typed(.variable(.root), .snapshot)
        case "data": return typed(.variable(.data), .snapshot)
        case "now": return typed(.variable(.now), .number)
        case "newData" where scope.kind != .read: return typed(.variable(.newData), .snapshot)
        case "query" where scope.kind == .read: return typed(.variable(.query), .query)
        default:
            if let depth = scope.wildcards[name] { return typed(.variable(.wildcard(depth: depth)), .string) }
            throw error("Unknown variable '\(name)'.", at: start)
        }
    }

    private func property(_ name: String, of receiver: TypedExpression, at start: Int) throws(DatabaseRulesError) -> TypedExpression {
        let type: StaticType
        switch receiver.type {
        case .string where name == "length": type = .number
        case .any:
            // A value read from the data (`val()`, `getPriority()`) is a primitive: it has no properties but a
            // string's `length`.
            if name != "length", case .snapshotMethod(_, let method, _) = receiver.expression,
                method == .val || method == .getPriority
            {
                throw error("No such method/property '\(name)'.", at: start)
            }
            type = .any
        case .query where RuleQuery.fields.contains(name):
            type = ["orderByKey", "orderByPriority", "orderByValue"].contains(name) ? .boolean : .any
        case .snapshot where SnapshotMethod(rawValue: name) != nil:
            throw error("'\(name)' is a method: call it as \(name)().", at: start)
        default:
            throw error("No such method/property '\(name)'.", at: start)
        }
        return TypedExpression(expression: .member(receiver.expression, name), type: type, start: receiver.start)
    }

    private mutating func parseCall(on receiver: TypedExpression, name: String, at start: Int) throws(DatabaseRulesError) -> TypedExpression {
        try expect("(")
        switch receiver.type {
        case .snapshot:
            guard let method = SnapshotMethod(rawValue: name) else {
                throw error("No such method/property '\(name)'.", at: start)
            }
            let arguments = try parseArguments(for: name, count: method.arities, at: start)
            let expected: StaticType = method == .hasChildren ? .list : .string
            for argument in arguments { try require(argument, in: [expected], for: "\(name)()") }
            let type: StaticType =
                switch method {
                case .val, .getPriority: .any
                case .child, .parent: .snapshot
                default: .boolean
                }
            return TypedExpression(
                expression: .snapshotMethod(receiver.expression, method, arguments.map(\.expression)), type: type,
                start: receiver.start)
        case .string, .any:
            if name == "matches" { return try parseMatches(on: receiver, at: start) }
            guard let method = StringMethod(rawValue: name) else {
                throw error("No such method/property '\(name)'.", at: start)
            }
            let arguments = try parseArguments(for: name, count: method.arity...method.arity, at: start)
            for argument in arguments { try require(argument, in: [.string], for: "\(name)()") }
            let type: StaticType = [.contains, .beginsWith, .endsWith].contains(method) ? .boolean : .string
            return TypedExpression(
                expression: .stringMethod(receiver.expression, method, arguments.map(\.expression)), type: type,
                start: receiver.start)
        default:
            throw error("No such method/property '\(name)'.", at: start)
        }
    }

    private mutating func parseMatches(on receiver: TypedExpression, at start: Int) throws(DatabaseRulesError) -> TypedExpression {
        guard isSymbol("/") else {
            throw error("matches() takes a regular expression literal, e.g. matches(/^[a-z]+$/).", at: token.start)
        }
        let literal = try readRegex()
        let regex: RuleRegex
        do {
            regex = try RuleRegex(pattern: literal.pattern, flags: literal.flags)
        } catch {
            throw self.error(error.reason, at: literal.start)
        }
        guard isSymbol(")") else {
            throw error("matches() takes exactly one argument.", at: token.start)
        }
        try advance()
        return TypedExpression(expression: .matches(receiver.expression, regex), type: .boolean, start: receiver.start)
    }

    /// The arguments up to and including `)` (the `(` is already read), checking their number.
    private mutating func parseArguments(
        for name: String, count: ClosedRange<Int>, at start: Int
    ) throws(DatabaseRulesError) -> [TypedExpression] {
        var arguments: [TypedExpression] = []
        while !isSymbol(")") {
            arguments.append(try parseConditional())
            guard isSymbol(",") else { break }
            try advance()
        }
        try expect(")")
        guard count.contains(arguments.count) else {
            let expected = count.lowerBound == count.upperBound ? "\(count.lowerBound)" : "\(count.lowerBound) or \(count.upperBound)"
            let noun = count.upperBound == 1 ? "argument" : "arguments"
            throw error("\(name)() takes \(expected) \(noun), not \(arguments.count).", at: start)
        }
        return arguments
    }
}
