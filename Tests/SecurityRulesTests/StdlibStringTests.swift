import Testing

@testable import SecurityRules

@Suite("Stdlib strings")
struct StdlibStringTests {
    @Test("lower, upper, trim, size (rules.String examples)")
    func basics() throws {
        #expect(try stdMethod(.string("ABC"), "lower") == .string("abc"))
        #expect(try stdMethod(.string("ABC123"), "lower") == .string("abc123"))
        #expect(try stdMethod(.string("abc"), "upper") == .string("ABC"))
        #expect(try stdMethod(.string("abc123"), "upper") == .string("ABC123"))
        #expect(try stdMethod(.string(" a "), "trim") == .string("a"))
        #expect(try stdMethod(.string("b"), "trim") == .string("b"))
        #expect(try stdMethod(.string("\t\n x y \r"), "trim") == .string("x y"))
        #expect(try stdMethod(.string("   "), "trim") == .string(""))
        #expect(try stdMethod(.string("a"), "size") == .int(1))
        #expect(try stdMethod(.string("abc"), "size") == .int(3))
    }

    @Test("size counts UTF-16 code units, as the official engine")
    func sizeInCodeUnits() throws {
        #expect(try stdMethod(.string("€"), "size") == .int(1))
        #expect(try stdMethod(.string("😀"), "size") == .int(2))
        #expect(try stdMethod(.string("e\u{301}"), "size") == .int(2))
    }

    @Test("toUtf8 (rules.String examples)")
    func toUtf8() throws {
        #expect(try stdMethod(.string("**"), "toUtf8") == .bytes([0x2A, 0x2A]))
        #expect(try stdMethod(.string("€"), "toUtf8") == .bytes([0xE2, 0x82, 0xAC]))
    }

    @Test("s[i] and s[i:j] (j exclusive) in UTF-16 code units")
    func indexAndRange() throws {
        let text = RuleValue.string("abcdef")
        #expect(try Stdlib.index(text, .int(0)) == .string("a"))
        #expect(try Stdlib.slice(text, .int(0), .int(3)) == .string("abc"))
        #expect(try Stdlib.slice(text, .int(2), nil) == .string("cdef"))
        #expect(try Stdlib.slice(text, nil, .int(2)) == .string("ab"))
        #expect(throws: RuleError.self) { try Stdlib.slice(text, .int(3), .int(3)) }  // empty: an error
        #expect(try Stdlib.index(.string("a€b"), .int(1)) == .string("€"))
        #expect(try Stdlib.index(.string("a😀b"), .int(3)) == .string("b"))
        #expect(try Stdlib.slice(.string("😀x"), .int(0), .int(2)) == .string("😀"))
        #expect(throws: RuleError.self) { try Stdlib.index(text, .int(6)) }
        #expect(throws: RuleError.self) { try Stdlib.index(text, .int(-1)) }
        #expect(throws: RuleError.self) { try Stdlib.slice(text, .int(4), .int(2)) }
        #expect(throws: RuleError.self) { try Stdlib.slice(text, .int(0), .int(7)) }
        #expect(throws: RuleError.self) { try Stdlib.index(text, .string("0")) }
    }

    @Test("matches: the whole string, RE2 syntax (rules.String examples)")
    func matches() throws {
        #expect(try stdMethod(.string("user@domain.com"), "matches", .string(".*@domain[.]com")) == .bool(true))
        #expect(try stdMethod(.string("banana"), "matches", .string(".*@domain[.]com")) == .bool(false))
        #expect(try stdMethod(.string("abc"), "matches", .string("b")) == .bool(false))
        #expect(try stdMethod(.string("image/png"), "matches", .string("image/.*")) == .bool(true))
        #expect(try stdMethod(.string("IMAGE/PNG"), "matches", .string("(?i)image/.*")) == .bool(true))
        #expect(try stdMethod(.string("a1"), "matches", .string("[[:alpha:]]\\d")) == .bool(true))
        #expect(try stdMethod(.string("ab"), "matches", .string("(?P<first>a)b")) == .bool(true))
        #expect(try stdMethod(.string("aaa"), "matches", .string("a{2,3}")) == .bool(true))
    }

    @Test("matches is code point by code point with ASCII classes, as RE2")
    func re2Semantics() throws {
        #expect(try stdMethod(.string("e\u{301}"), "matches", .string("..")) == .bool(true))
        #expect(try stdMethod(.string("\u{663}"), "matches", .string("\\d")) == .bool(false))
        #expect(try stdMethod(.string("é"), "matches", .string("\\w")) == .bool(false))
        #expect(try stdMethod(.string("é"), "matches", .string("\\pL")) == .bool(true))
        #expect(try stdMethod(.string("é1"), "matches", .string("[\\pL]\\PL")) == .bool(true))
        #expect(try stdMethod(.string("é"), "matches", .string("\\p{Latin}")) == .bool(true))
        #expect(try stdMethod(.string("a\nb"), "matches", .string("a.b")) == .bool(false))
        #expect(try stdMethod(.string("a\nb"), "matches", .string("(?s)a.b")) == .bool(true))
    }

    @Test("syntax RE2 does not support is an error", arguments: [
        "(a)\\1", "a(?=b)", "a(?!b)", "(?<=a)b", "(?<!a)b", "(?>ab)", "a++", "a*+", "a{2}+", "a\\Z", "(?x)a b",
        "\\k<n>", "(?P=n)", "(?#comment)", "a\\C",
    ])
    func unsupportedSyntax(pattern: String) {
        #expect(errorMessage { try stdMethod(.string("a"), "matches", .string(pattern)) }?
            .hasPrefix("Invalid regular expression") == true)
    }

    @Test("malformed patterns are errors")
    func malformed() {
        #expect(throws: RuleError.self) { try stdMethod(.string("a"), "matches", .string("(a")) }
        #expect(throws: RuleError.self) { try stdMethod(.string("a"), "matches", .string("[a")) }
    }

    @Test("supported look-alikes are not rejected")
    func supportedLookAlikes() throws {
        #expect(try stdMethod(.string("a+b"), "matches", .string("a\\+b")) == .bool(true))
        #expect(try stdMethod(.string("+"), "matches", .string("[+*?]")) == .bool(true))
        #expect(try stdMethod(.string("aab"), "matches", .string("a+?b")) == .bool(true))
        #expect(try stdMethod(.string("(?="), "matches", .string("\\Q(?=\\E")) == .bool(true))
        #expect(try stdMethod(.string("\u{8}"), "matches", .string("\\010")) == .bool(true))
    }

    @Test("split: by regular expression (rules.String example); trailing empties dropped as RE2/J")
    func split() throws {
        #expect(try stdMethod(.string("a/b/c"), "split", .string("/")) == stringList("a", "b", "c"))
        #expect(try stdMethod(.string("a1b22c"), "split", .string("[0-9]+")) == stringList("a", "b", "c"))
        #expect(try stdMethod(.string("/a/b"), "split", .string("/")) == stringList("", "a", "b"))
        #expect(try stdMethod(.string("a/b//"), "split", .string("/")) == stringList("a", "b"))
        #expect(try stdMethod(.string("abc"), "split", .string("/")) == stringList("abc"))
        #expect(try stdMethod(.string(""), "split", .string("/")) == stringList(""))
        #expect(try stdMethod(.string("abc"), "split", .string("")) == stringList("a", "b", "c"))
    }

    @Test("replace: every match, by regular expression (rules.String examples)")
    func replace() throws {
        #expect(try stdMethod(.string("banana"), "replace", .string("a"), .string("o")) == .string("bonono"))
        #expect(try stdMethod(.string("banana"), "replace", .string("ana"), .string("ee")) == .string("beena"))
        // The reference shows 15 dashes, but "foo@test.com" has 12 characters, each matched by ".".
        #expect(try stdMethod(.string("foo@test.com"), "replace", .string("."), .string("-"))
            == .string(String(repeating: "-", count: 12)))
        #expect(try stdMethod(.string("abc"), "replace", .string("x"), .string("y")) == .string("abc"))
    }

    @Test("replace expands $n and ${name}; \\ escapes")
    func replaceGroups() throws {
        #expect(try stdMethod(.string("john smith"), "replace", .string("(\\w+) (\\w+)"), .string("$2 $1"))
            == .string("smith john"))
        #expect(try stdMethod(.string("ab"), "replace", .string("(?P<x>a)"), .string("[${x}]")) == .string("[a]b"))
        #expect(try stdMethod(.string("ab"), "replace", .string("a"), .string("\\$1")) == .string("$1b"))
        #expect(try stdMethod(.string("ab"), "replace", .string("(a)"), .string("$10")) == .string("a0b"))
        #expect(throws: RuleError.self) { try stdMethod(.string("ab"), "replace", .string("a"), .string("$1")) }
        #expect(throws: RuleError.self) { try stdMethod(.string("ab"), "replace", .string("a"), .string("$")) }
    }
}

@Suite("Stdlib bytes")
struct StdlibBytesTests {
    @Test("size (rules.Bytes examples)")
    func size() throws {
        #expect(try stdMethod(.bytes([0xFF, 0xFF]), "size") == .int(2))
        #expect(try stdMethod(.bytes(Array("a".utf8)), "size") == .int(1))
        #expect(try stdMethod(.bytes(Array("€".utf8)), "size") == .int(3))
    }

    @Test("toBase64 is base64url (rules.Bytes example)")
    func base64() throws {
        #expect(try stdMethod(.bytes([0xFB, 0xEF, 0xBE]), "toBase64") == .string("----"))
        #expect(try stdMethod(.bytes(Array("hello".utf8)), "toBase64") == .string("aGVsbG8="))
        #expect(try stdMethod(.bytes([0xFF]), "toBase64") == .string("_w=="))
        #expect(try stdMethod(.bytes([]), "toBase64") == .string(""))
    }

    @Test("toHexString is uppercase (rules.Bytes examples)")
    func hex() throws {
        #expect(try stdMethod(.bytes([0x2A]), "toHexString") == .string("2A"))
        #expect(try stdMethod(.bytes(Array("**".utf8)), "toHexString") == .string("2A2A"))
        #expect(try stdMethod(.bytes(Array("€".utf8)), "toHexString") == .string("E282AC"))
    }
}
