import Testing

@testable import SecurityRules

@Suite("Stdlib lists")
struct StdlibListTests {
    let abc = stringList("a", "b", "c")

    @Test("index and range operators (rules.List)")
    func indexAndRange() throws {
        #expect(try Stdlib.index(abc, .int(1)) == .string("b"))
        #expect(try Stdlib.slice(abc, .int(1), .int(3)) == stringList("b", "c"))
        #expect(try Stdlib.slice(abc, nil, .int(1)) == stringList("a"))
        #expect(try Stdlib.slice(abc, .int(1), nil) == stringList("b", "c"))
        #expect(errorMessage { try Stdlib.index(abc, .int(3)) } == "Index 3 out of range for size 3.")
        #expect(throws: RuleError.self) { try Stdlib.index(abc, .int(-1)) }
        #expect(throws: RuleError.self) { try Stdlib.index(abc, .float(1)) }
        #expect(throws: RuleError.self) { try Stdlib.slice(abc, .int(2), .int(1)) }
        #expect(throws: RuleError.self) { try Stdlib.slice(abc, .string("a"), nil) }
    }

    @Test("size, concat, toSet")
    func basics() throws {
        #expect(try stdMethod(abc, "size") == .int(3))
        #expect(try stdMethod(.list([]), "size") == .int(0))
        #expect(try stdMethod(stringList("a"), "concat", stringList("b", "c")) == abc)
        #expect(try stdMethod(stringList("a", "b", "a"), "toSet") == stringSet("a", "b"))
        #expect(throws: RuleError.self) { try stdMethod(abc, "concat", stringSet("d")) }
    }

    @Test("hasAll, hasAny")
    func hasAllAny() throws {
        #expect(try stdMethod(abc, "hasAll", stringList("a", "c")) == .bool(true))
        #expect(try stdMethod(abc, "hasAll", stringList("a", "d")) == .bool(false))
        #expect(try stdMethod(abc, "hasAll", .list([])) == .bool(true))
        #expect(try stdMethod(abc, "hasAny", stringList("d", "c")) == .bool(true))
        #expect(try stdMethod(abc, "hasAny", stringList("d")) == .bool(false))
        #expect(try stdMethod(abc, "hasAny", .list([])) == .bool(false))
    }

    @Test("hasOnly (rules.List examples)")
    func hasOnly() throws {
        #expect(try stdMethod(stringList("a", "b"), "hasOnly", stringList("a", "c")) == .bool(false))
        #expect(try stdMethod(stringList("a", "b"), "hasOnly", stringList("a", "b", "c")) == .bool(true))
        #expect(try stdMethod(stringList("a", "b"), "hasOnly", stringList("b", "a")) == .bool(true))
        #expect(try stdMethod(stringList("a", "a", "b"), "hasOnly", stringList("a", "b", "b")) == .bool(true))
        #expect(try stdMethod(stringList("a", "a", "b"), "hasOnly", stringList("a", "b", "b", "c")) == .bool(true))
    }

    @Test("join, removeAll")
    func joinAndRemove() throws {
        #expect(try stdMethod(abc, "join", .string("/")) == .string("a/b/c"))
        #expect(try stdMethod(.list([]), "join", .string(",")) == .string(""))
        // Numbers, booleans and null join as string() writes them; lists do not (the official engine's answers).
        #expect(try stdMethod(.list([.int(1), .float(1.5), .bool(true), .null]), "join", .string(",")) == .string("1,1.5,true,null"))
        #expect(throws: RuleError.self) { try stdMethod(.list([.list([.int(1)])]), "join", .string(",")) }
        #expect(try stdMethod(stringList("a", "b", "c", "a"), "removeAll", stringList("a", "c")) == stringList("b"))
        // Only identical elements go: 1.0 is not 1 in a list.
        #expect(try stdMethod(.list([.int(1), .int(2)]), "removeAll", .list([.float(1.0)])) == .list([.int(1), .int(2)]))
    }
}

@Suite("Stdlib maps")
struct StdlibMapTests {
    let map: RuleValue = .map(["b": .int(2), "a": .int(3)])

    @Test("get with a default (rules.Map examples)")
    func get() throws {
        #expect(try stdMethod(map, "get", .string("c"), .int(7)) == .int(7))
        let lists: RuleValue = .map(["a": .list([.int(2), .int(7)]), "b": .list([.int(9), .int(12)])])
        #expect(try stdMethod(lists, "get", .string("c"), .list([.int(1), .int(1)])) == .list([.int(1), .int(1)]))
        #expect(try stdMethod(lists, "get", .string("b"), .list([.int(1), .int(1)])) == .list([.int(9), .int(12)]))
        let nested: RuleValue = .map(["a": .map(["b": .int(1)]), "c": .int(2)])
        #expect(try stdMethod(nested, "get", stringList("a", "b"), .int(7)) == .int(1))
        #expect(try stdMethod(nested, "get", stringList("a", "a_sub_key"), .null) == .null)
        #expect(try stdMethod(nested, "get", stringList("c", "d"), .int(0)) == .int(0))
        #expect(throws: RuleError.self) { try stdMethod(nested, "get", .int(1), .null) }
        #expect(throws: RuleError.self) { try stdMethod(nested, "get", .list([]), .null) }
    }

    @Test("keys, values, size; keys in code point order")
    func keysValues() throws {
        #expect(try stdMethod(map, "size") == .int(2))
        #expect(try stdMethod(map, "keys") == stringList("a", "b"))
        #expect(try stdMethod(map, "values") == .list([.int(3), .int(2)]))
    }

    @Test("m['k'] reads a key; a missing key is an error")
    func index() throws {
        #expect(try Stdlib.index(map, .string("a")) == .int(3))
        #expect(errorMessage { try Stdlib.index(map, .string("x")) } == "Property x is undefined on object.")
        #expect(throws: RuleError.self) { try Stdlib.index(map, .int(0)) }
    }

    @Test("diff key sets (rules.MapDiff examples)")
    func diff() throws {
        func diff(_ left: [String: RuleValue], _ right: [String: RuleValue], _ method: String) throws -> RuleValue {
            try stdMethod(try stdMethod(.map(left), "diff", .map(right)), method)
        }
        #expect(try diff(["a": .int(1)], [:], "addedKeys") == stringSet("a"))
        #expect(try diff(["a": .int(0), "c": .int(0), "u": .int(0)], ["r": .int(0), "c": .int(1), "u": .int(0)], "affectedKeys")
            == stringSet("a", "r", "c"))
        #expect(try diff(["a": .int(0)], ["a": .int(1), "b": .int(4)], "changedKeys") == stringSet("a"))
        #expect(try diff([:], ["a": .int(1)], "removedKeys") == stringSet("a"))
        #expect(try diff(["a": .int(0)], ["a": .int(0)], "unchangedKeys") == stringSet("a"))
        #expect(try diff(["a": .int(1)], ["a": .float(1.0)], "unchangedKeys") == stringSet("a"))
        #expect(try diff(["a": .int(1)], ["a": .float(1.0)], "affectedKeys") == stringSet())
        #expect(throws: RuleError.self) { try stdMethod(map, "diff", .list([])) }
    }

    @Test("the typical update rule: only 'a' changed")
    func affectedHasOnly() throws {
        let after: RuleValue = .map(["a": .int(2), "b": .string("same")])
        let before: RuleValue = .map(["a": .int(1), "b": .string("same")])
        let affected = try stdMethod(try stdMethod(after, "diff", before), "affectedKeys")
        #expect(try stdMethod(affected, "hasOnly", stringList("a")) == .bool(true))
    }
}

@Suite("Stdlib sets")
struct StdlibSetTests {
    @Test("size and in (rules.Set examples)")
    func basics() throws {
        #expect(try stdMethod(stringSet("a", "b"), "size") == .int(2))
        #expect(try stdMethod(try stdMethod(stringList("a", "b", "a"), "toSet"), "size") == .int(2))
        #expect(try stdBinary(.string("a"), .in, stringSet("a", "b")) == .bool(true))
    }

    @Test("difference, intersection, union (rules.Set examples)")
    func algebra() throws {
        #expect(try stdMethod(stringSet("a", "b"), "difference", stringSet("a", "c")) == stringSet("b"))
        #expect(try stdMethod(stringSet("a", "b"), "difference", stringSet("a", "b")) == stringSet())
        #expect(try stdMethod(stringSet("a", "b"), "intersection", stringSet("a", "c")) == stringSet("a"))
        #expect(try stdMethod(stringSet("a", "b"), "union", stringSet("a", "c")) == stringSet("a", "b", "c"))
        #expect(throws: RuleError.self) { try stdMethod(stringSet("a"), "union", .string("a")) }
    }

    @Test("hasAll, hasAny, hasOnly take a set or a list (rules.Set examples)")
    func tests() throws {
        #expect(try stdMethod(stringSet("a", "b"), "hasAll", stringList("a", "c")) == .bool(false))
        #expect(try stdMethod(stringSet("d", "e", "f"), "hasAll", stringList("d", "e")) == .bool(true))
        #expect(try stdMethod(stringSet("a", "b"), "hasAny", stringSet("c", "d")) == .bool(false))
        #expect(try stdMethod(stringSet("a", "b"), "hasAny", stringSet("a", "c")) == .bool(true))
        #expect(try stdMethod(stringSet("a", "b"), "hasOnly", stringList("a", "c")) == .bool(false))
        #expect(try stdMethod(stringSet("a", "b"), "hasOnly", stringList("a", "b")) == .bool(true))
    }
}

@Suite("Stdlib paths")
struct StdlibPathTests {
    let path = RuleValue.path(RulePath("/databases/(default)/documents/users/alice"))

    @Test("p[i] is a segment")
    func index() throws {
        #expect(try Stdlib.index(path, .int(4)) == .string("alice"))
        #expect(try Stdlib.index(path, .int(1)) == .string("(default)"))
        #expect(throws: RuleError.self) { try Stdlib.index(path, .int(5)) }
        #expect(throws: RuleError.self) { try Stdlib.index(path, .string("user")) }
    }

    @Test("bind fills $(name) and {name} segments (rules.Path example)")
    func bind() throws {
        let template = try #require(try stdFunction("path", .string("path/$(foo)/$(bar)")))
        let bound = try stdMethod(template, "bind", .map(["foo": .string("something"), "bar": .string("another")]))
        #expect(bound == .path(RulePath("/path/something/another")))
        let braces = try #require(try stdFunction("path", .string("users/{uid}/{n}")))
        #expect(try stdMethod(braces, "bind", .map(["uid": .string("alice"), "n": .string("3")])) == .path(RulePath("/users/alice/3")))
        // Only strings bind: an int value fails, used or not (the official engine's answer).
        #expect(throws: RuleError.self) { try stdMethod(braces, "bind", .map(["uid": .string("alice"), "n": .int(3)])) }
        #expect(throws: RuleError.self) { try stdMethod(path, "bind", .map(["x": .int(1)])) }
        #expect(try stdMethod(path, "bind", .map(["x": .string("y")])) == path)
        #expect(throws: RuleError.self) { try stdMethod(braces, "bind", .map(["uid": .list([])])) }
        #expect(throws: RuleError.self) { try stdMethod(braces, "bind", .string("x")) }
    }

    @Test("== compares segments")
    func equality() throws {
        #expect(try stdBinary(path, .equal, .path(RulePath("databases/(default)/documents/users/alice"))) == .bool(true))
        #expect(try stdBinary(path, .equal, .path(RulePath("/databases/(default)/documents/users/bob"))) == .bool(false))
    }
}
