/// Expressions, with production's documented precedence (firebase.google.com/docs/rules/rules-language,
/// "Operators and operator precedence"), lowest first:
///
/// ```
/// a ? b : c          right-associative
/// ||  &&             left
/// == !=              left
/// a is type          left
/// a in b             left
/// < <= > >=          left
/// + -   then * / %   left
/// ! -                prefix
/// a.f  a[i]  a[i:j]  a(...)
/// ```
/// Binary operators are parsed by precedence climbing, so a chain costs no recursion.
extension Parser {
    /// A binary operator (or `is`) with its precedence; higher binds tighter.
    private struct Infix {
        var op: BinaryOperator?
        var precedence: Int
    }

    /// An expression that is a statement's whole condition or value (nesting counts from zero again).
    mutating func parseRootExpression() -> Expression {
        let saved = nesting
        nesting = 0
        defer { nesting = saved }
        return parseExpression()
    }

    /// `or ('?' expression ':' expression)?`.
    mutating func parseExpression() -> Expression {
        guard enterNesting("expressions") else { return placeholder() }
        defer { nesting -= 1 }
        let condition = parseBinary(minimumPrecedence: 1)
        guard consume(.question) else { return condition }
        let then = parseExpression()
        guard consume(.colon) else {
            errorExpected("':' in a conditional expression")
            return make(.ternary(condition, then, placeholder()), at: condition.location)
        }
        let otherwise = parseExpression()
        return make(.ternary(condition, then, otherwise), at: condition.location)
    }

    /// The infix operator at the current token, if any. `is` has no `BinaryOperator`: its right side is a type.
    private var infix: Infix? {
        switch token.kind {
        case .symbol(.orOr): return Infix(op: .or, precedence: 1)
        case .symbol(.andAnd): return Infix(op: .and, precedence: 2)
        case .symbol(.equalEqual): return Infix(op: .equal, precedence: 3)
        case .symbol(.notEqual): return Infix(op: .notEqual, precedence: 3)
        case .word("is"): return Infix(op: nil, precedence: 4)
        case .word("in"): return Infix(op: .in, precedence: 5)
        case .symbol(.less): return Infix(op: .less, precedence: 6)
        case .symbol(.lessOrEqual): return Infix(op: .lessOrEqual, precedence: 6)
        case .symbol(.greater): return Infix(op: .greater, precedence: 6)
        case .symbol(.greaterOrEqual): return Infix(op: .greaterOrEqual, precedence: 6)
        case .symbol(.plus): return Infix(op: .add, precedence: 7)
        case .symbol(.minus): return Infix(op: .subtract, precedence: 7)
        case .symbol(.star): return Infix(op: .multiply, precedence: 8)
        case .symbol(.slash): return Infix(op: .divide, precedence: 8)
        case .symbol(.percent): return Infix(op: .remainder, precedence: 8)
        default: return nil
        }
    }

    /// Operands joined by infix operators of at least `minimumPrecedence`, left-associative.
    private mutating func parseBinary(minimumPrecedence: Int) -> Expression {
        var lhs = parseUnary()
        while let infix, infix.precedence >= minimumPrecedence {
            let operatorLocation = token.location
            advance()
            if let op = infix.op {
                let rhs = parseBinary(minimumPrecedence: infix.precedence + 1)
                lhs = make(.binary(op, lhs, rhs), at: lhs.location)
                anchors[lhs.id] = operatorLocation
            } else {
                lhs = make(.isType(lhs, parseTypeName()), at: lhs.location)
            }
        }
        return lhs
    }

    /// The type after `is`.
    @inline(never)
    private mutating func parseTypeName() -> TypeName {
        if let name = word, let type = TypeName(rawValue: name) {
            advance()
            return type
        }
        let known = TypeName.allCases.map(\.rawValue).joined(separator: ", ")
        if let name = word, !Self.statementKeywords.contains(name) {
            error("unknown type '\(name)' (expected \(known))")
            advance()
        } else {
            errorExpected("a type after 'is' (\(known))")
        }
        return .bool  // a stand-in: the error is reported

    }

    /// `!x`, `-x`, or a postfix expression.
    private mutating func parseUnary() -> Expression {
        let location = token.location
        let op: UnaryOperator
        switch token.kind {
        case .symbol(.bang): op = .not
        case .symbol(.minus): op = .negate
        default: return parsePostfix(parsePrimary())
        }
        advance()
        guard enterNesting("unary operators") else { return placeholder(at: location) }
        defer { nesting -= 1 }
        if op == .negate, token.kind == .int(UInt64(Int64.max) + 1) {
            advance()  // -9223372036854775808: the one negative literal whose magnitude does not fit in Int64
            return parsePostfix(make(.int(.min), at: location))
        }
        let operand = parseUnary()
        return make(.unary(op, operand), at: location)
    }

    /// Member access, indexing, slicing and calls after `base`.
    private mutating func parsePostfix(_ base: Expression) -> Expression {
        var expression = base
        while true {
            if consume(.dot) {
                guard let member = parseMember(of: expression) else { return expression }
                expression = member
            } else if consume(.leftBracket) {
                expression = parseSubscript(of: expression)
            } else if at(.leftParen) {
                expression = parseCall(of: expression)
            } else {
                return expression
            }
        }
    }

    /// `.name` after `receiver` (any word, keywords included); the `.` is consumed. `nil` if no name follows.
    @inline(never)
    private mutating func parseMember(of receiver: Expression) -> Expression? {
        guard let name = word else {
            errorExpected("a member name after '.'")
            return nil
        }
        let nameLocation = token.location
        advance()
        let member = make(.member(receiver, name), at: receiver.location)
        anchors[member.id] = nameLocation
        return member
    }

    /// `[i]`, `[i:j]`, `[:j]`, `[i:]` or `[:]` after `receiver`; the `[` is consumed.
    @inline(never)
    private mutating func parseSubscript(of receiver: Expression) -> Expression {
        if consume(.colon) {
            return parseSliceEnd(of: receiver, from: nil)
        }
        let index = parseExpression()
        if consume(.colon) {
            return parseSliceEnd(of: receiver, from: index)
        }
        expect(.rightBracket, "to close the index")
        return make(.index(receiver, index), at: receiver.location)
    }

    /// The optional upper bound and `]` of a slice; the `:` is consumed.
    private mutating func parseSliceEnd(of receiver: Expression, from: Expression?) -> Expression {
        let to = at(.rightBracket) ? nil : parseExpression()
        expect(.rightBracket, "to close the slice")
        return make(.slice(receiver, from, to), at: receiver.location)
    }

    /// `(arguments)` after `callee`; the current token is `(`.
    @inline(never)
    private mutating func parseCall(of callee: Expression) -> Expression {
        checkCallable(callee)
        advance()
        var arguments: [Expression] = []
        while !atEnd, !at(.rightParen) {
            arguments.append(parseExpression())
            guard continueList(closer: .rightParen, "in the argument list") else { break }
        }
        if !consume(.rightParen) {
            errorExpected("')' or ',' in the argument list")
        }
        return make(.call(callee, arguments), at: callee.location)
    }

    /// Reports a call on anything but a name or a member (`f(x)`, `a.f(x)`).
    @inline(never)
    private mutating func checkCallable(_ callee: Expression) {
        switch callee.kind {
        case .identifier, .member: break
        default: error("only functions and methods can be called")
        }
    }

    /// After an element of a bracketed list: whether another element follows (a `,` was consumed and the
    /// closer is not next). On anything but `,` or the closer, reports and skips to the next separator.
    @inline(never)
    private mutating func continueList(closer: Symbol, _ context: String) -> Bool {
        if consume(.comma) { return true }
        if at(closer) { return false }
        errorExpected("'\(closer.rawValue)' or ',' \(context)")
        return skipToSeparator(closer)
    }

    /// A literal, a name, a parenthesized expression, a list, a map or a path.
    private mutating func parsePrimary() -> Expression {
        if let literal = parseLiteral() {
            return literal
        }
        let location = token.location
        switch token.kind {
        case .word(let name):
            return parseWord(name, at: location)
        case .symbol(.leftParen):
            advance()
            let inner = parseExpression()
            expect(.rightParen, "to close the parenthesis")
            return inner
        case .symbol(.leftBracket):
            return parseList(at: location)
        case .symbol(.leftBrace):
            return parseMap(at: location)
        case .symbol(.slash):
            return parsePathLiteral(at: location)
        default:
            errorUnexpected(expected: "an expression")
            return placeholder(at: location)
        }
    }

    /// The number, string or bytes literal at the current token, consumed; `nil` if it is none.
    @inline(never)
    private mutating func parseLiteral() -> Expression? {
        let location = token.location
        let kind: ExpressionKind
        switch token.kind {
        case .int(let magnitude):
            if let value = Int64(exactly: magnitude) {
                kind = .int(value)
            } else {
                error("integer literal '\(magnitude)' is out of range", at: location)
                kind = .int(0)
            }
        case .float(let value): kind = .float(value)
        case .string(let value): kind = .string(value)
        case .bytes(let value): kind = .bytes(value)
        case .word, .symbol, .endOfFile: return nil
        }
        advance()
        return make(kind, at: location)
    }

    /// `true`, `false`, `null` or a name; a keyword here is an error (and is left for the statement parser).
    @inline(never)
    private mutating func parseWord(_ name: String, at location: SourceLocation) -> Expression {
        let kind: ExpressionKind
        switch name {
        case "true": kind = .bool(true)
        case "false": kind = .bool(false)
        case "null": kind = .null
        default:
            guard !Self.reservedWords.contains(name) else {
                error("unexpected keyword '\(name)', expected an expression")
                return placeholder(at: location)
            }
            kind = .identifier(name)
        }
        advance()
        return make(kind, at: location)
    }

    /// `[a, b, ...]` (a trailing comma is allowed, as in CEL).
    @inline(never)
    private mutating func parseList(at location: SourceLocation) -> Expression {
        advance()
        var elements: [Expression] = []
        while !atEnd, !at(.rightBracket) {
            elements.append(parseExpression())
            guard continueList(closer: .rightBracket, "in the list") else { break }
        }
        expect(.rightBracket, "or ',' in the list")
        return make(.list(elements), at: location)
    }

    /// `{key: value, ...}` (a trailing comma is allowed, as in CEL).
    @inline(never)
    private mutating func parseMap(at location: SourceLocation) -> Expression {
        advance()
        var entries: [(key: Expression, value: Expression)] = []
        while !atEnd, !at(.rightBrace) {
            let key = parseExpression()
            guard consume(.colon) else {
                errorExpected("':' after a map key")
                if skipToSeparator(.rightBrace) { continue }
                break
            }
            entries.append((key, parseExpression()))
            guard continueList(closer: .rightBrace, "in the map") else { break }
        }
        expect(.rightBrace, "or ',' in the map")
        return make(.map(entries), at: location)
    }
}
