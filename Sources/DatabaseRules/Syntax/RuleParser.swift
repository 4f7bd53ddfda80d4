/// Compiles one rule's expression: a recursive-descent parser (JavaScript's precedences) that resolves
/// names and checks types as it goes, so every error names the line and column where it is.
struct RuleParser {
    private(set) var lexer: RuleLexer
    private(set) var token: RuleToken
    let scope: RuleScope
    /// How many parenthesized expressions, lists, conditionals and prefix operators the parser is inside of now.
    private var nesting = 0
    /// How many binary operators the expression has so far.
    private var operators = 0

    /// The deepest nesting of parentheses, lists, conditionals and prefix operators an expression may have: far
    /// more than a real rule needs, and little enough that parsing never runs out of stack.
    static let maximumNesting = 64
    /// The most binary operators one expression may have: a chain of them is as deep a tree to evaluate.
    static let maximumOperators = 1000

    /// Compiles `text` (a `.read`, `.write` or `.validate` string) in `scope`.
    static func compile(_ text: RulesJSON.Text, scope: RuleScope) throws(DatabaseRulesError) -> RuleExpression {
        var parser = try RuleParser(text, scope: scope)
        if parser.token.kind == .end { throw parser.error("Empty expression.", at: 0) }
        let typed = try parser.parseConditional()
        if parser.token.kind != .end { throw parser.unexpected() }
        guard typed.type == .boolean || typed.type == .any else {
            throw parser.error("Expression must evaluate to a boolean, not a \(typed.type.name).", at: typed.start)
        }
        return typed.expression
    }

    private init(_ text: RulesJSON.Text, scope: RuleScope) throws(DatabaseRulesError) {
        var lexer = RuleLexer(text)
        token = try lexer.next()
        self.lexer = lexer
        self.scope = scope
    }

    // MARK: Tokens

    func error(_ reason: String, at offset: Int) -> DatabaseRulesError {
        DatabaseRulesError(reason, at: lexer.location(offset))
    }

    func unexpected() -> DatabaseRulesError {
        switch token.kind {
        case .end: error("Unexpected end of expression.", at: token.start)
        case .identifier(let name): error("Unexpected '\(name)'.", at: token.start)
        case .number: error("Unexpected number.", at: token.start)
        case .string: error("Unexpected string.", at: token.start)
        case .symbol(let symbol): error("Unexpected '\(symbol)'.", at: token.start)
        }
    }

    mutating func advance() throws(DatabaseRulesError) {
        token = try lexer.next()
    }

    func isSymbol(_ symbol: String) -> Bool { token.kind == .symbol(symbol) }

    mutating func expect(_ symbol: String) throws(DatabaseRulesError) {
        guard isSymbol(symbol) else { throw error("Expected '\(symbol)'.", at: token.start) }
        try advance()
    }

    mutating func readRegex() throws(DatabaseRulesError) -> (pattern: String, flags: String, start: Int) {
        let start = token.start
        let literal = try lexer.readRegex(at: start)
        try advance()
        return (literal.pattern, literal.flags, start)
    }

    // MARK: Operators, loosest first

    mutating func parseConditional() throws(DatabaseRulesError) -> TypedExpression {
        try enter()
        defer { nesting -= 1 }
        let condition = try parseOr()
        guard isSymbol("?") else { return condition }
        try countOperator()
        try require(condition, in: [.boolean], for: "?:")
        try advance()
        let then = try parseConditional()
        try expect(":")
        let otherwise = try parseConditional()
        if then.type != otherwise.type, then.type != .any, otherwise.type != .any {
            throw error(
                "Type error: the branches of '?:' must have the same type, not a \(then.type.name) and a \(otherwise.type.name).",
                at: then.start)
        }
        return TypedExpression(
            expression: .conditional(condition.expression, then.expression, otherwise.expression),
            type: then.type == otherwise.type ? then.type : .any, start: condition.start)
    }

    private mutating func parseOr() throws(DatabaseRulesError) -> TypedExpression {
        var lhs = try parseAnd()
        while isSymbol("||") {
            try countOperator()
            try advance()
            let rhs = try parseAnd()
            try require(lhs, in: [.boolean], for: "||")
            try require(rhs, in: [.boolean], for: "||")
            lhs = TypedExpression(expression: .or(lhs.expression, rhs.expression), type: .boolean, start: lhs.start)
        }
        return lhs
    }

    private mutating func parseAnd() throws(DatabaseRulesError) -> TypedExpression {
        var lhs = try parseEquality()
        while isSymbol("&&") {
            try countOperator()
            try advance()
            let rhs = try parseEquality()
            try require(lhs, in: [.boolean], for: "&&")
            try require(rhs, in: [.boolean], for: "&&")
            lhs = TypedExpression(expression: .and(lhs.expression, rhs.expression), type: .boolean, start: lhs.start)
        }
        return lhs
    }

    private mutating func parseEquality() throws(DatabaseRulesError) -> TypedExpression {
        var lhs = try parseRelational()
        while case .symbol(let symbol) = token.kind, let op = BinaryOperator(rawValue: symbol), op == .equal || op == .notEqual {
            try countOperator()
            try advance()
            let rhs = try parseRelational()
            // Snapshots are not values: `root.child('x') != null` is refused, as the live service refuses it.
            for operand in [lhs, rhs] where operand.type == .snapshot {
                throw error("Type error: '\(symbol)' cannot compare a \(operand.type.name); compare its val().", at: operand.start)
            }
            lhs = TypedExpression(expression: .binary(op, lhs.expression, rhs.expression), type: .boolean, start: lhs.start)
        }
        return lhs
    }

    private mutating func parseRelational() throws(DatabaseRulesError) -> TypedExpression {
        var lhs = try parseAdditive()
        while case .symbol(let symbol) = token.kind, let op = BinaryOperator(rawValue: symbol),
            [.less, .lessOrEqual, .greater, .greaterOrEqual].contains(op)
        {
            try countOperator()
            try advance()
            let rhs = try parseAdditive()
            try require(lhs, in: [.number, .string], for: symbol)
            try require(rhs, in: [.number, .string], for: symbol)
            lhs = TypedExpression(expression: .binary(op, lhs.expression, rhs.expression), type: .boolean, start: lhs.start)
        }
        return lhs
    }

    private mutating func parseAdditive() throws(DatabaseRulesError) -> TypedExpression {
        var lhs = try parseMultiplicative()
        while case .symbol(let symbol) = token.kind, symbol == "+" || symbol == "-" {
            try countOperator()
            try advance()
            let rhs = try parseMultiplicative()
            let type: StaticType
            if symbol == "+" {
                try require(lhs, in: [.number, .string], for: "+")
                try require(rhs, in: [.number, .string], for: "+")
                type = lhs.type == .string || rhs.type == .string ? .string
                    : lhs.type == .number && rhs.type == .number ? .number : .any
            } else {
                try require(lhs, in: [.number], for: "-")
                try require(rhs, in: [.number], for: "-")
                type = .number
            }
            let op: BinaryOperator = symbol == "+" ? .add : .subtract
            lhs = TypedExpression(expression: .binary(op, lhs.expression, rhs.expression), type: type, start: lhs.start)
        }
        return lhs
    }

    private mutating func parseMultiplicative() throws(DatabaseRulesError) -> TypedExpression {
        var lhs = try parseUnary()
        while case .symbol(let symbol) = token.kind, let op = BinaryOperator(rawValue: symbol),
            [.multiply, .divide, .remainder].contains(op)
        {
            try countOperator()
            try advance()
            let rhs = try parseUnary()
            try require(lhs, in: [.number], for: symbol)
            try require(rhs, in: [.number], for: symbol)
            lhs = TypedExpression(expression: .binary(op, lhs.expression, rhs.expression), type: .number, start: lhs.start)
        }
        return lhs
    }

    /// Counts one more binary operator, refusing the expression past `maximumOperators`.
    private mutating func countOperator() throws(DatabaseRulesError) {
        guard operators < Self.maximumOperators else {
            throw error("The expression is too long (more than \(Self.maximumOperators) operators).", at: token.start)
        }
        operators += 1
    }

    /// Counts one more level of nesting, refusing the expression past `maximumNesting`.
    private mutating func enter() throws(DatabaseRulesError) {
        guard nesting < Self.maximumNesting else {
            throw error("The expression is nested too deeply (more than \(Self.maximumNesting) levels).", at: token.start)
        }
        nesting += 1
    }

    /// The operand of a prefix operator: one level deeper.
    private mutating func parseOperandOfPrefix() throws(DatabaseRulesError) -> TypedExpression {
        try enter()
        defer { nesting -= 1 }
        return try parseUnary()
    }

    private mutating func parseUnary() throws(DatabaseRulesError) -> TypedExpression {
        let start = token.start
        if isSymbol("!") {
            try advance()
            let operand = try parseOperandOfPrefix()
            try require(operand, in: [.boolean], for: "!")
            return TypedExpression(expression: .not(operand.expression), type: .boolean, start: start)
        }
        if isSymbol("-") {
            try advance()
            let operand = try parseOperandOfPrefix()
            try require(operand, in: [.number], for: "-")
            if case .literal(.number(let number)) = operand.expression {
                return TypedExpression(expression: .literal(.number(-number)), type: .number, start: start)
            }
            return TypedExpression(expression: .negate(operand.expression), type: .number, start: start)
        }
        return try parsePostfix()
    }

    /// Refuses an operand whose type is known and not one of `allowed` (`any` passes: evaluation decides).
    func require(_ operand: TypedExpression, in allowed: [StaticType], for op: String) throws(DatabaseRulesError) {
        guard operand.type != .any, !allowed.contains(operand.type) else { return }
        let names = allowed.map { $0.name + "s" }.joined(separator: " and ")
        throw error("Type error: '\(op)' only operates on \(names), not a \(operand.type.name).", at: operand.start)
    }
}
