import Testing

@testable import SecurityRules

/// The lexer alone: tokens, literals and escapes, locations, comments, raw path scanning and its errors.
@Suite struct LexerTests {
    /// Every token of `text` up to the end, and the lexer's diagnostics.
    func lex(_ text: String) -> (tokens: [Token], diagnostics: [String]) {
        var lexer = Lexer(text, fileName: "f")
        var tokens: [Token] = []
        while true {
            let token = lexer.next()
            if token.kind == .endOfFile { break }
            tokens.append(token)
        }
        return (tokens, lexer.diagnostics.map { "\($0.location): \($0.message)" })
    }

    /// The kinds of the tokens of `text`, which must lex without errors.
    func kinds(_ text: String) -> [Token.Kind] {
        let result = lex(text)
        #expect(result.diagnostics.isEmpty, "\(text): \(result.diagnostics)")
        return result.tokens.map(\.kind)
    }

    @Test func symbols() {
        let text = Symbol.allCases.map(\.rawValue).joined(separator: " ")
        #expect(kinds(text) == Symbol.allCases.map { .symbol($0) })
        #expect(kinds("a<=b!=c==d>=e&&f||!g") == [
            .word("a"), .symbol(.lessOrEqual), .word("b"), .symbol(.notEqual), .word("c"), .symbol(.equalEqual),
            .word("d"), .symbol(.greaterOrEqual), .word("e"), .symbol(.andAnd), .word("f"), .symbol(.orOr),
            .symbol(.bang), .word("g"),
        ])
    }

    @Test func wordsIncludeKeywords() {
        #expect(kinds("allow match is in _x a1 rules_version") == [
            .word("allow"), .word("match"), .word("is"), .word("in"), .word("_x"), .word("a1"), .word("rules_version"),
        ])
    }

    @Test func locationsCountLinesAndUnicodeScalars() {
        let tokens = lex("a\n  'é' b\r\n'😀' c\td").tokens
        #expect(tokens.map(\.location) == [
            SourceLocation(line: 1, column: 1), SourceLocation(line: 2, column: 3), SourceLocation(line: 2, column: 7),
            SourceLocation(line: 3, column: 1), SourceLocation(line: 3, column: 5), SourceLocation(line: 3, column: 7),
        ])
    }

    @Test func commentsAreSkipped() {
        let tokens = lex("a // line comment\n b /* block\n comment */ c/**/d").tokens
        #expect(tokens.map(\.kind) == [.word("a"), .word("b"), .word("c"), .word("d")])
        #expect(tokens[2].location == SourceLocation(line: 3, column: 13))
    }

    @Test func numbers() {
        #expect(kinds("0 42 0x1f 0XFF 18446744073709551615") == [
            .int(0), .int(42), .int(31), .int(255), .int(.max),
        ])
        #expect(kinds("1.5 .5") == [.float(1.5), .float(0.5)])
        // No exponents: the official parser refuses them.
        #expect(lex("1e3 2.5E-2").diagnostics == ["1:2: Unexpected 'e3'.", "1:8: Unexpected 'E-2'."])
        #expect(kinds("1.x 1e") == [.int(1), .symbol(.dot), .word("x"), .int(1), .word("e")])
    }

    @Test(arguments: [
        (#"'a'"#, "a"), (#""b""#, "b"), (#"''"#, ""), (#""it's""#, "it's"), (#"'say "hi"'"#, "say \"hi\""),
        (#"'\n\r\t\a\b\f\v'"#, "\n\r\t\u{07}\u{08}\u{0C}\u{0B}"), (#"'\\\'\"\`\?'"#, "\\'\"`?"),
        (#"'\x41\X42\101\u00e9\U0001F600'"#, "ABAé😀"), (#"'\000'"#, "\u{0}"),
        (#"r'a\nb'"#, #"a\nb"#), (#"R"\d+""#, #"\d+"#),
        ("'''a'b''c\nd'''", "a'b''c\nd"), (#""""x"y""""#, "x\"y"), ("r'''\\n'''", "\\n"),
        ("'é😀'", "é😀"),
    ] as [(String, String)])
    func strings(_ text: String, _ value: String) {
        #expect(kinds(text) == [.string(value)])
    }

    @Test func bytesLiterals() {
        #expect(kinds(#"b'\xff\x00\377a'"#) == [.bytes([0xFF, 0x00, 0xFF, 0x61])])
        #expect(kinds(#"B"\u00e9""#) == [.bytes([0xC3, 0xA9])])
        #expect(kinds(#"br'\x' rb"\" Rb'' bR''"#) == [
            .bytes(Array(#"\x"#.utf8)), .bytes(Array(#"\"#.utf8)), .bytes([]), .bytes([]),
        ])
        #expect(kinds("b rb rr'x'") == [.word("b"), .word("rb"), .word("rr"), .string("x")])
    }

    @Test func lexicalErrors() {
        #expect(lex("'abc\nx").diagnostics == ["1:1: unterminated string literal"])
        #expect(lex("'abc\nx").tokens.map(\.kind) == [.string("abc"), .word("x")])
        #expect(lex("'''abc\n").diagnostics == ["1:1: unterminated string literal"])
        #expect(lex("a /* never closed").diagnostics == ["1:3: unterminated block comment"])
        #expect(lex(#"'\q'"#).diagnostics == [#"1:2: invalid escape sequence '\q'"#])
        #expect(lex(#"'\x4'"#).diagnostics == [#"1:2: invalid escape sequence '\x4'"#])
        #expect(lex(#"'\4'"#).diagnostics == [#"1:2: invalid escape sequence '\4'"#])
        #expect(lex(#"'\U00110000'"#).diagnostics == [#"1:2: invalid Unicode escape '\U00110000'"#])
        #expect(lex(#"'\udfff'"#).diagnostics == [#"1:2: invalid Unicode escape '\udfff'"#])
        #expect(lex("18446744073709551616").diagnostics == ["1:1: integer literal '18446744073709551616' is out of range"])
        #expect(lex("0xFFFFFFFFFFFFFFFFF").diagnostics == ["1:1: integer literal '0xFFFFFFFFFFFFFFFFF' is out of range"])
        #expect(lex("0x").diagnostics == ["1:1: expected hexadecimal digits after '0x'"])
        #expect(lex("--1").diagnostics == ["1:1: Increment (++) and decrement (--) operators are not supported."])
        #expect(lex("a # é $ b").diagnostics == [
            "1:3: unexpected character '#'", "1:5: unexpected character 'é'", "1:7: unexpected character '$'",
        ])
        #expect(lex("a # é $ b").tokens.map(\.kind) == [.word("a"), .word("b")])
    }

    @Test func loneAmpersandAndBarReadAsTheirDoubledOperators() {
        let result = lex("a & b | c")
        #expect(result.tokens.map(\.kind) == [.word("a"), .symbol(.andAnd), .word("b"), .symbol(.orOr), .word("c")])
        #expect(result.diagnostics == [
            "1:3: unexpected character '&' (did you mean '&&'?)", "1:7: unexpected character '|' (did you mean '||'?)",
        ])
    }

    @Test func quietLexerSkipsUnknownCharactersSilently() {
        var lexer = Lexer("# a", fileName: "f")
        lexer.isQuiet = true
        #expect(lexer.next().kind == .word("a"))
        #expect(lexer.diagnostics.isEmpty)
    }

    @Test func matchPatterns() {
        var lexer = Lexer("match /a/{b}/{ c = ** }/(default)/x-y.z~%20 {", fileName: "f")
        #expect(lexer.next().kind == .word("match"))
        #expect(lexer.next().kind == .symbol(.slash))
        #expect(lexer.scanMatchPattern() == [
            .literal("a"), .variable("b"), .recursive("c"), .literal("(default)"), .literal("x-y.z~%20"),
        ])
        #expect(lexer.next() == Token(kind: .symbol(.leftBrace), location: SourceLocation(line: 1, column: 45)))
        #expect(lexer.diagnostics.isEmpty)
    }

    @Test func pathTextStopsAtTheFirstCharacterNoSegmentContinues() {
        var lexer = Lexer("a(b)c) d", fileName: "f")
        #expect(lexer.scanPathText() == "a(b)c")
        #expect(lexer.next().kind == .symbol(.rightParen))
        #expect(lexer.scanPathText() == nil)
    }
}
