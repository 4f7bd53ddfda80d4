import Testing

@testable import SecurityRules

/// The parser on whole files: golden structure of real rules, locations, ids and statement-level rules.
@Suite struct ParserTests {
    /// Parses a file that must have no diagnostics at all.
    func parseClean(_ text: String, firstID: Int = 0) throws -> RulesFile {
        let result = Parser.parse(RulesSource(fileName: "test.rules", text: text), firstID: firstID)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        return try #require(result.file)
    }

    /// The rendering of one expression that must parse cleanly.
    func render(_ text: String) -> String {
        let result = Parser.parseExpression(text)
        #expect(result.diagnostics.isEmpty, "\(text): \(result.diagnostics)")
        return result.expression.map(Rendered.expression) ?? "<nil>"
    }

    @Test func chatFirestoreRules() throws {
        let file = try parseClean(ChatRules.firestore)
        let participants = "get(/databases/$(database)/documents/conversations/$(conversationId)).data.participantIds"
        #expect(Rendered.file(file) == """
            rules_version 2
            service cloud.firestore
              match /databases/{database}/documents
                match /users/{userId}
                  allow read: (request.auth != null)
                  allow write: (request.auth.uid == userId)
                match /conversations/{conversationId}
                  allow read: (request.auth.uid in resource.data.participantIds)
                  allow create: (request.auth.uid in request.resource.data.participantIds)
                  allow update: (request.auth.uid in resource.data.participantIds)
                  match /messages/{messageId}
                    allow read, write: (request.auth.uid in \(participants))
                  match /typing/{userId}
                    allow read: (request.auth.uid in \(participants))
                    allow write: (request.auth.uid == userId)
            """)
    }

    @Test func chatStorageRules() throws {
        let file = try parseClean(ChatRules.storage)
        let auth = "isAuthenticated()"
        let participant = "isParticipant(conversationId)"
        #expect(Rendered.file(file) == """
            rules_version 2
            service firebase.storage
              match /b/{bucket}/o
                function isAuthenticated() { return (request.auth != null) }
                function isParticipant(conversationId) { return (request.auth.uid in firestore.get(/databases/(default)/documents/conversations/$(conversationId)).data.participantIds) }
                match /images/{conversationId}/{messageId}/{filename}
                  allow write: ((\(auth) && \(participant)) && (request.resource.size < ((2 * 1024) * 1024)))
                  allow read: (\(auth) && \(participant))
                match /documents/{conversationId}/{messageId}/{filename}
                  allow write: (((\(auth) && \(participant)) && (request.resource.size < ((10 * 1024) * 1024))) && (request.resource.contentType == "application/pdf"))
                  allow read: (\(auth) && \(participant))
                match /profile_pictures/{userId}/{fileName}
                  allow read: (request.auth != null)
                  allow write: (((request.auth.uid == userId) && (request.resource.size < ((10 * 1024) * 1024))) && request.resource.contentType.matches("image/.*"))
            """)
    }

    @Test func docsMatchExampleWithConditionlessAllows() throws {
        // firebase.google.com/docs/rules/rules-language, "Match".
        let file = try parseClean("""
            service firebase.storage {
              match /example/{singleSegment} {
                allow write;
                match /nested/path {
                  allow read;
                }
              }
              match /example/{multiSegment=**} {
                allow read;
              }
            }
            """)
        #expect(Rendered.file(file) == """
            rules_version 1
            service firebase.storage
              match /example/{singleSegment}
                allow write: always
                match /nested/path
                  allow read: always
              match /example/{multiSegment=**}
                allow read: always
            """)
    }

    @Test func functionsWithLetBindingsAtEveryScope() throws {
        // firebase.google.com/docs/rules/rules-language, "Function".
        let file = try parseClean("""
            rules_version = '2';
            function global() { return true; }
            service cloud.firestore {
              function inService(a) { return a; }
              match /databases/{database}/documents {
                function isAuthorOrAdmin(userId, article) {
                  let isAuthor = article.author == userId;
                  let isAdmin = exists(/databases/$(database)/documents/admins/$(userId));
                  return isAuthor || isAdmin;
                }
                match /articles/{id} { allow update, delete: if isAuthorOrAdmin(request.auth.uid, resource.data); }
              }
            }
            """)
        #expect(Rendered.file(file) == """
            rules_version 2
            service cloud.firestore
              function global() { return true }
              function inService(a) { return a }
              match /databases/{database}/documents
                function isAuthorOrAdmin(userId, article) { let isAuthor = (article.author == userId); let isAdmin = exists(/databases/$(database)/documents/admins/$(userId)); return (isAuthor || isAdmin) }
                match /articles/{id}
                  allow update, delete: isAuthorOrAdmin(request.auth.uid, resource.data)
            """)
    }

    @Test func rulesVersion() throws {
        #expect(try parseClean("service cloud.firestore {}").version == .v1)
        #expect(try parseClean("rules_version = '1'; service cloud.firestore {}").version == .v1)
        #expect(try parseClean("rules_version = \"2\"; service cloud.firestore {}").version == .v2)
    }

    @Test func matchPatternSegments() throws {
        let file = try parseClean("""
            rules_version = '2';
            service cloud.firestore {
              match /databases/(default)/documents/{path=**}/songs/{song} {}
              match /b/my-bucket.appspot.com/o/a~b%20c/{ rest = ** } {}
            }
            """)
        #expect(file.services[0].matches.map(\.pattern) == [
            [.literal("databases"), .literal("(default)"), .literal("documents"), .recursive("path"), .literal("songs"), .variable("song")],
            [.literal("b"), .literal("my-bucket.appspot.com"), .literal("o"), .literal("a~b%20c"), .recursive("rest")],
        ])
    }

    @Test func locationsAreTheFirstTokenOfEachNode() throws {
        let file = try parseClean("""
            service cloud.firestore {
              match /a/{b} {
                allow read: if x.y
                  && f(1);
              }
            }
            """)
        let service = file.services[0]
        #expect(service.location == SourceLocation(line: 1, column: 1))
        let match = service.matches[0]
        #expect(match.location == SourceLocation(line: 2, column: 3))
        let allow = match.allows[0]
        #expect(allow.location == SourceLocation(line: 3, column: 5))
        let condition = try #require(allow.condition)
        #expect(condition.location == SourceLocation(line: 3, column: 20))
        guard case .binary(.and, let lhs, let rhs) = condition.kind else {
            Issue.record("not an &&: \(condition.kind)")
            return
        }
        #expect(lhs.location == SourceLocation(line: 3, column: 20))
        #expect(rhs.location == SourceLocation(line: 4, column: 10))
    }

    @Test func expressionIDsAreUniqueAndIncreasingFromFirstID() throws {
        let result = Parser.parse(RulesSource(fileName: "chat.rules", text: ChatRules.storage), firstID: 1000)
        let file = try #require(result.file)
        var ids: [Int] = []
        func collect(_ expression: Expression) {
            ids.append(expression.id)
            switch expression.kind {
            case .member(let receiver, _): collect(receiver)
            case .call(let callee, let arguments): collect(callee); arguments.forEach(collect)
            case .binary(_, let lhs, let rhs): collect(lhs); collect(rhs)
            case .path(let segments):
                for case .interpolation(let value) in segments { collect(value) }
            default: break
            }
        }
        func walk(_ match: MatchBlock) {
            match.functions.forEach { collect($0.body) }
            match.allows.compactMap(\.condition).forEach(collect)
            match.matches.forEach(walk)
        }
        file.services.forEach { $0.matches.forEach(walk) }
        #expect(Set(ids).count == ids.count)
        #expect(ids.min() == 1000)
        #expect(ids.max() == result.nextID - 1)
        #expect(Set(ids) == Set(1000..<result.nextID))
    }

    @Test func childrenAreNumberedBeforeParents() throws {
        let expression = try #require(Parser.parseExpression("a + b").expression)
        guard case .binary(.add, let lhs, let rhs) = expression.kind else {
            Issue.record("\(expression.kind)")
            return
        }
        #expect([lhs.id, rhs.id, expression.id] == [0, 1, 2])
    }

    @Test func semicolonsMayBeOmittedBeforeTheNextStatement() throws {
        // Production accepts these (github.com/anboralabs/intellij-firebase-highlighter/issues/115,
        // github.com/bijoutrouvaille/fireward/issues/11); we accept them with a warning.
        let result = Parser.parse(RulesSource(fileName: "f", text: """
            service firebase.storage {
              function f() { return true }
              match /a {
                allow read: if f()
                allow write: if false
              }
            }
            """))
        let file = try #require(result.file)
        #expect(file.services[0].matches[0].allows.count == 2)
        #expect(result.diagnostics.map(\.severity) == [.warning, .warning, .warning])
        #expect(result.diagnostics.map(\.message) == [
            "missing ';' after return statement", "missing ';' after allow statement", "missing ';' after allow statement",
        ])
        #expect(result.diagnostics[1].location == SourceLocation(line: 4, column: 23))
    }
}

extension ParserTests {
    /// Expressions: precedence, associativity, literals and path literals.
    @Suite struct Expressions {
        func render(_ text: String) -> String {
            let result = Parser.parseExpression(text)
            #expect(result.diagnostics.isEmpty, "\(text): \(result.diagnostics)")
            return result.expression.map(Rendered.expression) ?? "<nil>"
        }

        /// Precedence per firebase.google.com/docs/rules/rules-language ("Operators and operator precedence").
        @Test(arguments: [
            ("a || b && c", "(a || (b && c))"),
            ("a && b || c", "((a && b) || c)"),
            ("a || b || c", "((a || b) || c)"),
            ("a == b && c != d", "((a == b) && (c != d))"),
            ("a == b == c", "((a == b) == c)"),
            ("a < b == c > d", "((a < b) == (c > d))"),
            ("a in b == c in d", "((a in b) == (c in d))"),
            ("a < b in c", "((a < b) in c)"),
            ("a in b < c", "(a in (b < c))"),
            ("x is string == true", "((x is string) == true)"),
            ("a in b is bool", "((a in b) is bool)"),
            ("x is int is bool", "((x is int) is bool)"),
            ("a + b * c", "(a + (b * c))"),
            ("a * b + c", "((a * b) + c)"),
            ("a - b - c", "((a - b) - c)"),
            ("a / b % c * d", "(((a / b) % c) * d)"),
            ("1 + 2 < 3 * 4", "((1 + 2) < (3 * 4))"),
            ("-a.b", "(-a.b)"),
            ("!a == b", "((!a) == b)"),
            ("!!a", "(!(!a))"),
            ("- -1", "(-(-1))"),
            ("a - -1", "(a - (-1))"),
            ("a ? b : c ? d : e", "(a ? b : (c ? d : e))"),
            ("a ? b ? c : d : e", "(a ? (b ? c : d) : e)"),
            ("a || b ? c : d", "((a || b) ? c : d)"),
            ("(a + b) * c", "((a + b) * c)"),
            ("a.b.c(d)[e].f", "a.b.c(d)[e].f"),
            ("a[1:2]", "a[1:2]"),
            ("a[:2]", "a[:2]"),
            ("a[1:]", "a[1:]"),
            ("a[:]", "a[:]"),
            ("a / b", "(a / b)"),
            ("a == /b/c", "(a == /b/c)"),
            ("f(1, 2,)", "f(1, 2)"),
            ("request.auth.uid in resource.data.get('members', [])", "(request.auth.uid in resource.data.get(\"members\", []))"),
        ] as [(String, String)])
        func precedence(_ text: String, _ expected: String) {
            #expect(render(text) == expected)
        }

        @Test(arguments: [
            ("null", "null"), ("true", "true"), ("false", "false"),
            ("0", "0"), ("42", "42"), ("0x1F", "31"), ("0XfF", "255"), ("9223372036854775807", "9223372036854775807"),
            ("-9223372036854775808", "-9223372036854775808"),
            ("1.5", "1.5"), (".5", "0.5"),
            ("'single'", "\"single\""), ("\"double\"", "\"double\""),
            (#"'a\nb\t\\\'\"\u00e9\x41\101'"#, #""a\nb\t\\\'\"éAA""#),
            (#"r'raw\n'"#, #""raw\\n""#), (#"R"raw\d""#, #""raw\\d""#),
            (#"b'\xff\x00a'"#, "b[ff 0 61]"), (#"rb'\x'"#, "b[5c 78]"),
            ("'''multi\nline'''", #""multi\nline""#),
            ("[]", "[]"), ("[1, 'a', [true],]", "[1, \"a\", [true]]"),
            ("{}", "{}"), ("{'a': 1, \"b\": [2],}", "{\"a\": 1, \"b\": [2]}"), ("{k: v}", "{k: v}"),
        ] as [(String, String)])
        func literals(_ text: String, _ expected: String) {
            #expect(render(text) == expected)
        }

        @Test func minimumIntegerIsOneNode() throws {
            let expression = try #require(Parser.parseExpression("-9223372036854775808").expression)
            guard case .int(let value) = expression.kind else {
                Issue.record("\(expression.kind)")
                return
            }
            #expect(value == .min)
        }

        @Test(arguments: [
            ("/databases/$(database)/documents/users/$(request.auth.uid)", "/databases/$(database)/documents/users/$(request.auth.uid)"),
            ("/databases/(default)/documents/a-b/c.d/e~f/g%20h", "/databases/(default)/documents/a-b/c.d/e~f/g%20h"),
            ("/a/$( x + 'y' )/b", "/a/$((x + \"y\"))/b"),
            ("/a/$(b).c", "/a/$(b).c"),
            ("get(/a/$(b)).data", "get(/a/$(b)).data"),
            ("(/path/$(foo)/$(bar)).bind({\"foo\": \"something\"})", "/path/$(foo)/$(bar).bind({\"foo\": \"something\"})"),
            ("exists(/a/b) && x", "(exists(/a/b) && x)"),
            ("[/a, /b/$(c)]", "[/a, /b/$(c)]"),
            ("c ? /a/b : /c/d", "(c ? /a/b : /c/d)"),
            ("/a/$(/b/$(c))", "/a/$(/b/$(c))"),
        ] as [(String, String)])
        func pathLiterals(_ text: String, _ expected: String) {
            #expect(render(text) == expected)
        }

        @Test func pathSegmentsAreTextOrInterpolation() throws {
            let expression = try #require(Parser.parseExpression("/databases/$(database)/documents").expression)
            guard case .path(let segments) = expression.kind, segments.count == 3,
                  case .text("databases") = segments[0], case .interpolation(let value) = segments[1],
                  case .identifier("database") = value.kind, case .text("documents") = segments[2]
            else {
                Issue.record("\(expression.kind)")
                return
            }
            #expect(expression.location == SourceLocation(line: 1, column: 1))
            #expect(value.location == SourceLocation(line: 1, column: 14))
        }

        @Test func keywordsAreNamesAfterADot() {
            #expect(render("resource.data.in.is.match.if.list") == "resource.data.in.is.match.if.list")
            #expect(render("get(path).list") == "get(path).list")
        }
    }
}

extension ParserTests {
    /// Diagnostics: each message, where it points, and recovery to report several in one run.
    @Suite struct Diagnostics {
        /// `line:column: severity: message` for each diagnostic of a whole file.
        func diagnose(_ text: String) -> [String] {
            Parser.parse(RulesSource(fileName: "f.rules", text: text)).diagnostics.map { String($0.description.dropFirst("f.rules:".count)) }
        }

        /// The diagnostics of a condition inside a minimal file (line 3, the condition starting at column 17,
        /// so an expression after `if ` starts at column 20).
        func diagnose(condition: String) -> [String] {
            diagnose("service cloud.firestore {\n  match /a {\n    allow read: \(condition);\n  }\n}")
        }

        @Test(arguments: [
            ("if f(, 1)", "3:22: error: unexpected ',', expected an expression"),
            ("if (a", "3:22: error: expected ')' to close the parenthesis, found ';'"),
            ("if (a b)", "3:23: error: expected ')' to close the parenthesis, found 'b'"),
            ("if a +", "3:23: error: unexpected ';', expected an expression"),
            ("if a b", "3:22: error: expected ';' after allow statement, found 'b'"),
            ("if allow", "3:20: error: unexpected keyword 'allow', expected an expression"),
            ("if x is strin", "3:25: error: unknown type 'strin' (expected bool, bytes, float, int, list, latlng, number, path, map, set, string, timestamp, duration, map_diff)"),
            ("if x is", "3:24: error: expected a type after 'is' (bool, bytes, float, int, list, latlng, number, path, map, set, string, timestamp, duration, map_diff), found ';'"),
            ("if 1(2)", "3:21: error: only functions and methods can be called"),
            ("if [1, 2", "3:25: error: expected ']' or ',' in the list, found ';'"),
            ("if [1 2]", "3:23: error: expected ']' or ',' in the list, found '2'"),
            ("if f(1 2)", "3:24: error: expected ')' or ',' in the argument list, found '2'"),
            ("if {'a' 1}", "3:25: error: expected ':' after a map key, found '1'"),
            ("if {'a': 1 'b': 2}", "3:28: error: expected '}' or ',' in the map, found string literal"),
            ("if a.", "3:22: error: expected a member name after '.', found ';'"),
            ("if a[1", "3:23: error: expected ']' to close the index, found ';'"),
            ("if a[1:2", "3:25: error: expected ']' to close the slice, found ';'"),
            ("if a ? b", "3:25: error: expected ':' in a conditional expression, found ';'"),
            ("if 9223372036854775808", "3:20: error: integer literal '9223372036854775808' is out of range"),
            ("if 99999999999999999999", "3:20: error: integer literal '99999999999999999999' is out of range"),
            ("if 0x", "3:20: error: expected hexadecimal digits after '0x'"),
            ("if 1e999", "3:21: error: Unexpected 'e999'."),
            ("true", "3:17: error: expected 'if' after ':' in an allow statement, found 'true'"),
            ("if exists(/users/{id})", "3:34: error: '{...}' is not allowed in a path literal; write $(name) to insert a value"),
            ("if exists(/users/a$(b))", "3:35: error: a path segment cannot mix text and $(...)"),
            ("if exists(/users/$(b)a)", "3:38: error: a path segment cannot mix text and $(...)"),
            ("if exists(/users/)", "3:34: error: expected a path segment after '/'"),
            ("if exists(/a/$(b c))", "3:34: error: expected ')' to close '$(' in the path, found 'c'"),
            ("if exists(/a/(b)", "3:33: error: expected ')' or ',' in the argument list, found ';'"),
            ("if exists(/a/(b", "3:30: error: expected ')' to close '(' in path segment"),
            ("if 'abc", "3:20: error: unterminated string literal"),
            ("if 'a\\qb'", "3:22: error: invalid escape sequence '\\q'"),
            ("if '\\ud800'", "3:21: error: invalid Unicode escape '\\ud800'"),
            ("if a # b", "3:22: error: unexpected character '#'"),
            ("if a & b", "3:22: error: unexpected character '&' (did you mean '&&'?)"),
            ("if a | b", "3:22: error: unexpected character '|' (did you mean '||'?)"),
            ("if $(a)", "3:20: error: unexpected character '$'"),
        ] as [(String, String)])
        func expressionErrors(_ condition: String, _ expected: String) {
            let found = diagnose(condition: condition)
            #expect(found.first == expected, "\(found)")
        }

        @Test func unknownMethod() {
            #expect(diagnose("service cloud.firestore { match /a { allow reed, write: if true; } }") == [
                "1:44: error: unknown method 'reed' (expected read, write, get, list, create, update, delete)",
            ])
            #expect(diagnose("service cloud.firestore { match /a { allow : if true; } }") == [
                "1:44: error: expected a method after 'allow', found ':'",
            ])
        }

        @Test func missingSemicolonAfterAllowIsAWarning() {
            #expect(diagnose("service cloud.firestore {\n  match /a {\n    allow read: if true\n  }\n}") == [
                "3:24: warning: missing ';' after allow statement",
            ])
        }

        @Test func letBindingsNeedSemicolons() {
            // "Let assignment statements must be separated by semicolons" (rules-language docs).
            #expect(diagnose("service cloud.firestore { function f() { let a = 1 return a; } }") == [
                "1:51: error: missing ';' after let binding",
            ])
        }

        @Test func functionShapes() {
            #expect(diagnose("service cloud.firestore { function f() { let a = 1; } }") == [
                "1:40: error: function 'f' must end with a return statement",
            ])
            #expect(diagnose("service cloud.firestore { function f() { return 1; return 2; } }") == [
                "1:52: error: a function can contain only one return statement",
            ])
            #expect(diagnose("service cloud.firestore { function f() { return 1; let a = 2; } }") == [
                "1:52: error: let bindings must come before the return statement",
            ])
            #expect(diagnose("service cloud.firestore { function f(a, if) { return 1; } }") == [
                "1:41: error: expected a parameter name, found 'if'",
            ])
        }

        @Test func rulesVersionErrors() {
            #expect(diagnose("rules_version = '3';\nservice cloud.firestore {}") == [
                "1:17: error: rules_version must be '1' or '2', found '3'",
            ])
            #expect(diagnose("rules_version = 2;\nservice cloud.firestore {}") == [
                "1:17: error: rules_version must be the string '1' or '2', found '2'",
            ])
            #expect(diagnose("service cloud.firestore {}\nrules_version = '2';") == [
                "2:1: error: rules_version must be the first statement in the file",
            ])
        }

        @Test func serviceErrors() {
            #expect(diagnose("service cloud.datastore {}") == [
                "1:1: warning: unknown service 'cloud.datastore' (expected cloud.firestore or firebase.storage)",
            ])
            // "You can only include one service declaration per source file" (rules-language docs).
            #expect(diagnose("service cloud.firestore {}\nservice firebase.storage {}") == [
                "2:1: error: only one service declaration is allowed per file",
            ])
            #expect(diagnose("service cloud.firestore { allow read; }") == [
                "1:27: error: allow statements must be inside a match block",
            ])
            #expect(diagnose("match /a { allow read; }") == [
                "1:1: error: 'match' must be inside a service declaration",
                "1:25: error: expected a service declaration ('service cloud.firestore' or 'service firebase.storage')",
            ])
            #expect(diagnose("service cloud.firestore {\n  match /a {\n") == [
                "3:1: error: expected '}' to close the match block opened at 2:3, found end of file",
            ])
        }

        @Test func emptyFileDeclaresNothing() {
            let result = Parser.parse(RulesSource(fileName: "f.rules", text: "// nothing\n"))
            #expect(result.file == nil)
            #expect(result.diagnostics.map(\.description) == [
                "f.rules:2:1: error: expected a service declaration ('service cloud.firestore' or 'service firebase.storage')",
            ])
        }

        @Test func matchPatternErrors() {
            #expect(diagnose("service cloud.firestore { match /a/{b=*} {} }") == ["1:39: error: expected '**' after '=' in a wildcard"])
            #expect(diagnose("service cloud.firestore { match /a/{b {} }") == [
                "1:39: error: expected '}' to close the wildcard opened at 1:36",
            ])
            #expect(diagnose("service cloud.firestore { match /a/{} {} }") == ["1:37: error: expected a wildcard name after '{'"])
            #expect(diagnose("service cloud.firestore { match /a/ {} }") == ["1:36: error: expected a path segment after '/'"])
            #expect(diagnose("service cloud.firestore { match /a/x{b} {} }") == ["1:37: error: a path segment cannot mix text and wildcards"])
            #expect(diagnose("service cloud.firestore { match a {} }") == [
                "1:33: error: expected a path starting with '/' after 'match', found 'a'",
            ])
            #expect(diagnose("rules_version = '2'; service cloud.firestore { match /{a=**}/b/{c=**} {} }") == [
                "1:54: error: a match path can contain at most one recursive wildcard",
            ])
            // Version 1 only allows the recursive wildcard at the end (rules-structure docs, "Recursive wildcards").
            #expect(diagnose("service cloud.firestore { match /{a=**}/b {} }") == [
                "1:33: error: a recursive wildcard must be the last segment of a match path in rules_version '1'",
            ])
            #expect(diagnose("service cloud.firestore { match /{a=**} { match /b {} } }") == [
                "1:43: warning: Glob(**) resource rules should not have child resource rules.",
            ])
        }

        @Test func lexicalErrorsInTheFile() {
            #expect(diagnose("service cloud.firestore { /* open") == [
                "1:27: error: unterminated block comment",
                "1:34: error: expected '}' to close the service opened at 1:1, found end of file",
            ])
        }

        @Test func recoveryReportsEveryBrokenStatement() throws {
            let text = """
                service cloud.firestore {
                  match /a {
                    allow reed: if true;
                    allow read: if (;
                    allow write: if a b c;
                    allow get: if true;
                    function f( { return 1; }
                    match /b { allow list: if 1 +; }
                    allow delete: if ok;
                  }
                }
                """
            let result = Parser.parse(RulesSource(fileName: "f.rules", text: text))
            #expect(result.diagnostics.map { String($0.description.dropFirst("f.rules:".count)) } == [
                "3:11: error: unknown method 'reed' (expected read, write, get, list, create, update, delete)",
                "4:21: error: unexpected ';', expected an expression",
                "5:23: error: expected ';' after allow statement, found 'b'",
                "7:17: error: expected a parameter name, found '{'",
                "8:34: error: unexpected ';', expected an expression",
            ])
            let match = try #require(result.file?.services.first?.matches.first)
            #expect(match.allows.map(\.methods) == [[], [.read], [.write], [.get], [.delete]])
            #expect(match.matches.count == 1)
            #expect(match.functions.map(\.name) == ["f"])
        }

        @Test func parseExpressionRejectsTrailingTokens() {
            let result = Parser.parseExpression("a b")
            #expect(result.expression == nil)
            #expect(result.diagnostics.map(\.description) == ["<expression>:1:3: error: unexpected 'b' after the expression"])
        }

        @Test func nestingIsBoundedWithOneDiagnostic() {
            let deep = String(repeating: "(", count: Parser.maxNesting - 1) + "1" + String(repeating: ")", count: Parser.maxNesting - 1)
            #expect(Parser.parseExpression(deep).diagnostics.isEmpty)
            for text in [
                String(repeating: "(", count: 300) + "1" + String(repeating: ")", count: 300),
                String(repeating: "[", count: 5000),
                String(repeating: "!", count: 100_000) + "a",
                String(repeating: "- ", count: 100_000) + "1",
                String(repeating: "a ? ", count: 1000) + "b",
                String(repeating: "f(", count: 1000),
                String(repeating: "/a/$(", count: 1000),
            ] {
                let result = Parser.parseExpression(text)
                #expect(result.expression == nil)
                #expect(result.diagnostics.count == 1, "\(result.diagnostics)")
                #expect(result.diagnostics.first?.message.contains("nested too deeply") == true)
            }
            let matches = "service cloud.firestore {" + String(repeating: "match /a {", count: 500)
            let column = 26 + 10 * Parser.maxNesting
            #expect(diagnose(matches) == ["1:\(column): error: match blocks nested too deeply (more than \(Parser.maxNesting) levels)"])
        }

        @Test func longChainsAreBounded() {
            let chain = Array(repeating: "a", count: 5000).joined(separator: " && ")
            let result = Parser.parseExpression(chain)
            #expect(result.diagnostics.map(\.message) == ["expression too complex (more than \(Parser.maxHeight) levels deep)"])
            let members = "a" + String(repeating: ".b", count: 5000)
            #expect(Parser.parseExpression(members).diagnostics.count == 1)
            let fine = Array(repeating: "a", count: 900).joined(separator: " || ")
            #expect(Parser.parseExpression(fine).diagnostics.isEmpty)
            let wide = "[" + Array(repeating: "1", count: 20_000).joined(separator: ",") + "]"
            #expect(Parser.parseExpression(wide).diagnostics.isEmpty)
        }
    }
}

extension ParserTests {
    /// Text forms of parsed trees for golden comparisons: expressions fully parenthesized, files indented.
    enum Rendered {
        /// `(a + b)`, `a.b(c)[d]`, `/p/$(x)`, `(x is string)`, `(c ? a : b)`.
        static func expression(_ expression: Expression) -> String {
            switch expression.kind {
            case .null: return "null"
            case .bool(let value): return "\(value)"
            case .int(let value): return "\(value)"
            case .float(let value): return "\(value)"
            case .string(let value): return value.debugDescription
            case .bytes(let value): return "b[" + value.map { String($0, radix: 16) }.joined(separator: " ") + "]"
            case .list(let elements): return "[" + elements.map(Self.expression).joined(separator: ", ") + "]"
            case .map(let entries):
                return "{" + entries.map { "\(Self.expression($0.key)): \(Self.expression($0.value))" }.joined(separator: ", ") + "}"
            case .path(let segments):
                return segments.map { segment in
                    switch segment {
                    case .text(let text): return "/" + text
                    case .interpolation(let value): return "/$(" + Self.expression(value) + ")"
                    }
                }.joined()
            case .identifier(let name): return name
            case .member(let receiver, let name): return "\(Self.expression(receiver)).\(name)"
            case .index(let receiver, let index): return "\(Self.expression(receiver))[\(Self.expression(index))]"
            case .slice(let receiver, let from, let to):
                return "\(Self.expression(receiver))[\(from.map(Self.expression) ?? ""):\(to.map(Self.expression) ?? "")]"
            case .call(let callee, let arguments):
                return "\(Self.expression(callee))(" + arguments.map(Self.expression).joined(separator: ", ") + ")"
            case .unary(let op, let operand): return "(\(op.rawValue)\(Self.expression(operand)))"
            case .binary(let op, let lhs, let rhs): return "(\(Self.expression(lhs)) \(op.rawValue) \(Self.expression(rhs)))"
            case .ternary(let condition, let then, let otherwise):
                return "(\(Self.expression(condition)) ? \(Self.expression(then)) : \(Self.expression(otherwise)))"
            case .isType(let operand, let type): return "(\(Self.expression(operand)) is \(type.rawValue))"
            }
        }

        /// One line per declaration, indented by nesting.
        static func file(_ file: RulesFile) -> String {
            var lines = ["rules_version \(file.version.rawValue)"]
            for service in file.services {
                lines.append("service \(service.name)")
                lines += service.functions.map { "  " + function($0) }
                for match in service.matches { append(match, indent: "  ", to: &lines) }
            }
            return lines.joined(separator: "\n")
        }

        private static func append(_ match: MatchBlock, indent: String, to lines: inout [String]) {
            let pattern = match.pattern.map { segment -> String in
                switch segment {
                case .literal(let text): return "/" + text
                case .variable(let name): return "/{\(name)}"
                case .recursive(let name): return "/{\(name)=**}"
                }
            }.joined()
            lines.append(indent + "match " + pattern)
            let inner = indent + "  "
            lines += match.functions.map { inner + function($0) }
            lines += match.allows.map { allow in
                let methods = allow.methods.map(\.rawValue).joined(separator: ", ")
                return inner + "allow \(methods): " + (allow.condition.map(expression) ?? "always")
            }
            for child in match.matches { append(child, indent: inner, to: &lines) }
        }

        private static func function(_ function: FunctionDeclaration) -> String {
            let lets = function.bindings.map { "let \($0.name) = \(expression($0.value)); " }.joined()
            return "function \(function.name)(\(function.parameters.joined(separator: ", "))) { \(lets)return \(expression(function.body)) }"
        }
    }

    /// The chat app's rules (design.md §1 and the seeds), as a user would write them.
    enum ChatRules {
        static let firestore = """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
                match /users/{userId} {
                  allow read: if request.auth != null;
                  allow write: if request.auth.uid == userId;
                }
                // Participant-based access control
                match /conversations/{conversationId} {
                  allow read: if request.auth.uid in resource.data.participantIds;
                  allow create: if request.auth.uid in request.resource.data.participantIds;
                  allow update: if request.auth.uid in resource.data.participantIds;

                  match /messages/{messageId} {
                    allow read, write: if request.auth.uid in
                      get(/databases/$(database)/documents/conversations/$(conversationId)).data.participantIds;
                  }

                  match /typing/{userId} {
                    allow read: if request.auth.uid in
                      get(/databases/$(database)/documents/conversations/$(conversationId)).data.participantIds;
                    allow write: if request.auth.uid == userId;
                  }
                }
              }
            }
            """

        static let storage = """
            rules_version = '2';
            service firebase.storage {
              match /b/{bucket}/o {
                function isAuthenticated() {
                  return request.auth != null;
                }

                function isParticipant(conversationId) {
                  return request.auth.uid in
                    firestore.get(/databases/(default)/documents/conversations/$(conversationId)).data.participantIds;
                }

                // Image attachments: /images/{conversationId}/{messageId}/{filename}
                match /images/{conversationId}/{messageId}/{filename} {
                  allow write: if isAuthenticated() && isParticipant(conversationId) && request.resource.size < 2 * 1024 * 1024;
                  allow read: if isAuthenticated() && isParticipant(conversationId);
                }

                // Document attachments: /documents/{conversationId}/{messageId}/{filename}
                match /documents/{conversationId}/{messageId}/{filename} {
                  // Allow upload if authenticated and participant (with 10MB limit)
                  allow write: if isAuthenticated()
                    && isParticipant(conversationId)
                    && request.resource.size < 10 * 1024 * 1024  // 10MB limit
                    && request.resource.contentType == 'application/pdf';

                  /* Allow read if authenticated and participant */
                  allow read: if isAuthenticated() && isParticipant(conversationId);
                }

                match /profile_pictures/{userId}/{fileName} {
                  allow read: if request.auth != null;
                  allow write: if request.auth.uid == userId
                                && request.resource.size < 10 * 1024 * 1024
                                && request.resource.contentType.matches('image/.*');
                }
              }
            }
            """
    }
}
