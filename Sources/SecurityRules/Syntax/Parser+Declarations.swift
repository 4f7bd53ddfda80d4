/// Declarations: the file, `rules_version`, `service`, `allow` and `function` (`match` blocks are in
/// `Parser+Blocks.swift`).
///
/// ```
/// file      := ('rules_version' '=' string ';')? (service | function)*
/// service   := 'service' name ('.' name)* '{' (match | function)* '}'
/// match     := 'match' pattern '{' (match | allow | function)* '}'
/// allow     := 'allow' method (',' method)* (':' 'if' expression)? ';'
/// function  := 'function' name '(' (name (',' name)*)? ')' '{' ('let' name '=' expression ';')* 'return' expression ';' '}'
/// ```
/// The `;` after `allow`, `return` and `rules_version` may be left out before `}` or the next statement, as
/// production accepts (a warning). Functions may also be declared outside the service (production's parser
/// expects `function`, `service` or `syntax` there, per its error "mismatched input '{' expecting
/// {'function', 'service', 'syntax'}" quoted in github.com/firebase/codelab-friendlychat-ios/issues/12); they
/// are visible in every service, so they are prepended to each service's functions.
extension Parser {
    /// The whole file; `nil` if it declares no service.
    mutating func parseFile() -> RulesFile? {
        if at(word: "rules_version") {
            version = parseRulesVersion()
        }
        var services: [ServiceDeclaration] = []
        var functions: [FunctionDeclaration] = []
        while !atEnd {
            switch word {
            case "service":
                let service = parseService()
                if !services.isEmpty {
                    error("only one service declaration is allowed per file", at: service.location)
                }
                services.append(service)
            case "function":
                functions.append(parseFunction())
            case "rules_version":
                error("rules_version must be the first statement in the file")
                _ = parseRulesVersion()
            case .some(let keyword) where keyword == "match" || keyword == "allow":
                error("'\(keyword)' must be inside a service declaration")
                advance()
                skipStatement()
            default:
                errorUnexpected(expected: "'service' or 'function'")
                advance()
                skipStatement()
            }
        }
        guard !services.isEmpty else {
            error("expected a service declaration ('service cloud.firestore' or 'service firebase.storage')")
            return nil
        }
        if !functions.isEmpty {
            for index in services.indices {
                services[index].functions = functions + services[index].functions
            }
        }
        return RulesFile(fileName: lexer.fileName, version: version, services: services, anchors: anchors)
    }

    /// `rules_version = '1' | '2';` — the current token is `rules_version`.
    private mutating func parseRulesVersion() -> RulesVersion {
        let errorsBefore = errorCount
        advance()
        expect(.assign, "after 'rules_version'")
        var version = RulesVersion.v1
        switch token.kind {
        case .string(let text):
            if let declared = RulesVersion(rawValue: text) {
                version = declared
            } else {
                error("rules_version must be '1' or '2', found '\(text)'")
            }
            advance()
        case .int, .float:
            error("rules_version must be the string '1' or '2', found \(token.description)")
            advance()
        default:
            errorExpected("'1' or '2' after 'rules_version ='")
        }
        endStatement("rules_version", errorsBefore: errorsBefore)
        return version
    }

    /// `service cloud.firestore { ... }` — the current token is `service`.
    private mutating func parseService() -> ServiceDeclaration {
        let location = token.location
        advance()
        var parts: [String] = []
        if let name = word, !Self.statementKeywords.contains(name) {
            parts.append(name)
            advance()
            while consume(.dot) {
                guard let next = word else {
                    errorExpected("a name after '.' in the service name")
                    break
                }
                parts.append(next)
                advance()
            }
        } else {
            errorExpected("a service name after 'service'")
        }
        let name = parts.joined(separator: ".")
        if !name.isEmpty, RulesService(rawValue: name) == nil {
            warning("unknown service '\(name)' (expected cloud.firestore or firebase.storage)", at: location)
        }
        let body = parseServiceBody(openedAt: location)
        return ServiceDeclaration(name: name, functions: body.functions, matches: body.matches, location: location)
    }

    /// `allow read, write: if condition;` — the current token is `allow`.
    mutating func parseAllow() -> AllowStatement {
        let location = token.location
        let errorsBefore = errorCount
        advance()
        var methods: [RuleMethod] = []
        repeat {
            guard let name = word, !Self.reservedWords.contains(name) else {
                errorExpected("a method after 'allow'")
                break
            }
            if let method = RuleMethod(rawValue: name) {
                methods.append(method)
            } else {
                let known = RuleMethod.allCases.map(\.rawValue).joined(separator: ", ")
                error("unknown method '\(name)' (expected \(known))")
            }
            advance()
        } while consume(.comma)
        var condition: Expression?
        if consume(.colon) {
            if at(word: "if") {
                advance()
            } else {
                errorExpected("'if' after ':' in an allow statement")
            }
            condition = parseRootExpression()
        } else if at(word: "if") {
            error("expected ':' before 'if' in an allow statement")
            advance()
            condition = parseRootExpression()
        }
        endStatement("allow statement", errorsBefore: errorsBefore)
        return AllowStatement(methods: methods, condition: condition, location: location)
    }

    /// `function name(params) { let x = e; return e; }` — the current token is `function`.
    mutating func parseFunction() -> FunctionDeclaration {
        let location = token.location
        advance()
        var name = ""
        let nameLocation = token.location
        if let word, !Self.reservedWords.contains(word) {
            name = word
            advance()
        } else {
            errorExpected("a function name after 'function'")
        }
        var parameters: [String] = []
        var parameterLocations: [SourceLocation] = []
        if consume(.leftParen) {
            if !at(.rightParen) {
                repeat {
                    guard let parameter = word, !Self.reservedWords.contains(parameter) else {
                        errorExpected("a parameter name")
                        break
                    }
                    parameters.append(parameter)
                    parameterLocations.append(token.location)
                    advance()
                } while consume(.comma)
            }
            expect(.rightParen, "after the parameters of '\(name)'")
        } else {
            errorExpected("'(' after the function name")
        }
        let (bindings, body) = parseFunctionBody(of: name)
        return FunctionDeclaration(
            name: name, parameters: parameters, bindings: bindings, body: body ?? placeholder(at: location),
            location: location, nameLocation: nameLocation, parameterLocations: parameterLocations)
    }

    /// `{ ('let' name '=' expression ';')* 'return' expression ';' }`.
    private mutating func parseFunctionBody(
        of name: String
    ) -> (bindings: [(name: String, value: Expression)], body: Expression?) {
        let open = token.location
        var bindings: [(name: String, value: Expression)] = []
        var body: Expression?
        guard consume(.leftBrace) else {
            errorExpected("'{' to start the body of function '\(name)'")
            skipStatement()
            return (bindings, nil)
        }
        while !atEnd, !at(.rightBrace) {
            let statement = token.location
            if at(word: "let") {
                advance()
                if body != nil {
                    error("let bindings must come before the return statement", at: statement)
                }
                guard let variable = word, !Self.reservedWords.contains(variable) else {
                    errorExpected("a name after 'let'")
                    skipStatement()
                    continue
                }
                advance()
                expect(.assign, "after 'let \(variable)'")
                bindings.append((variable, parseRootExpression()))
                if !consume(.semicolon) {
                    if atStatementBoundary {
                        error("missing ';' after let binding", at: previousEnd)
                    } else {
                        errorExpected("';' after let binding")
                        skipStatement()
                    }
                }
            } else if at(word: "return") {
                let errorsBefore = errorCount
                advance()
                let value = parseRootExpression()
                if body == nil {
                    body = value
                } else {
                    error("a function can contain only one return statement", at: statement)
                }
                endStatement("return statement", errorsBefore: errorsBefore)
            } else {
                errorUnexpected(expected: "'let' or 'return'", in: "the body of function '\(name)'")
                advance()
                skipStatement()
            }
        }
        if !consume(.rightBrace) {
            errorExpected("'}' to close the body of function '\(name)' opened at \(open)")
        }
        if body == nil {
            error("function '\(name)' must end with a return statement", at: open)
        }
        return (bindings, body)
    }
}
