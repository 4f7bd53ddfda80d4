import Testing

@testable import SecurityRules

// Expected values come from the Firebase rules reference (firebase.google.com/docs/reference/rules/rules)
// and, where it is silent, the CEL specification; comments name the page an example is from.

/// `receiver.name(arguments)`.
func stdMethod(_ receiver: RuleValue, _ name: String, _ arguments: RuleValue...) throws -> RuleValue {
    try Stdlib.method(receiver, name, arguments)
}

/// A global (`int`) or namespaced (`math.abs`) function.
func stdFunction(_ qualified: String, _ arguments: RuleValue...) throws -> RuleValue? {
    let parts = qualified.split(separator: ".", maxSplits: 1).map(String.init)
    return parts.count == 2
        ? try Stdlib.function(namespace: parts[0], parts[1], arguments)
        : try Stdlib.function(namespace: nil, parts[0], arguments)
}

/// `lhs op rhs`.
func stdBinary(_ lhs: RuleValue, _ op: BinaryOperator, _ rhs: RuleValue) throws -> RuleValue {
    try Stdlib.binary(op, lhs, rhs)
}

/// A list of strings.
func stringList(_ items: String...) -> RuleValue { .list(items.map(RuleValue.string)) }

/// A set of strings, as `[...].toSet()`.
func stringSet(_ items: String...) -> RuleValue { .set(RuleSet(items.map(RuleValue.string))) }

/// The message of the error `body` throws, or `nil`.
func errorMessage(_ body: () throws -> Any?) -> String? {
    do {
        _ = try body()
        return nil
    } catch let error as RuleError {
        return error.message
    } catch {
        return "\(error)"
    }
}

@Suite("Stdlib operators")
struct StdlibOperatorTests {
    @Test("int op int stays an int; int meeting float widens (rules.Integer)")
    func arithmeticTypes() throws {
        #expect(try stdBinary(.int(1), .add, .int(2)) == .int(3))
        #expect(try stdBinary(.int(1), .add, .int(2)).typeName == "int")
        #expect(try stdBinary(.int(1), .add, .float(2.0)).typeName == "float")
        #expect(try stdBinary(.float(1.5), .multiply, .int(2)) == .float(3.0))
        #expect(try stdBinary(.int(5), .subtract, .int(7)) == .int(-2))
        #expect(try stdBinary(.int(6), .multiply, .int(7)) == .int(42))
    }

    @Test("int division truncates toward zero, % takes the dividend's sign")
    func integerDivision() throws {
        #expect(try stdBinary(.int(7), .divide, .int(2)) == .int(3))
        #expect(try stdBinary(.int(-7), .divide, .int(2)) == .int(-3))
        #expect(try stdBinary(.int(7), .remainder, .int(3)) == .int(1))
        #expect(try stdBinary(.int(-7), .remainder, .int(3)) == .int(-1))
        #expect(try stdBinary(.float(7.0), .divide, .int(2)) == .float(3.5))
        #expect(try stdBinary(.float(7.5), .remainder, .int(2)) == .float(1.5))
    }

    @Test("division or modulo of ints by zero is an error; floats follow IEEE 754")
    func divisionByZero() throws {
        #expect(errorMessage { try stdBinary(.int(1), .divide, .int(0)) } == "division by zero")
        #expect(errorMessage { try stdBinary(.int(1), .remainder, .int(0)) } == "modulo by zero")
        #expect(try stdBinary(.float(1), .divide, .int(0)) == .float(.infinity))
        guard case .float(let nan) = try stdBinary(.float(0), .divide, .float(0)) else { Issue.record(); return }
        #expect(nan.isNaN)
    }

    @Test("int overflow is an error")
    func overflow() throws {
        #expect(errorMessage { try stdBinary(.int(.max), .add, .int(1)) } == "integer overflow")
        #expect(errorMessage { try stdBinary(.int(.min), .subtract, .int(1)) } == "integer overflow")
        #expect(errorMessage { try stdBinary(.int(.max), .multiply, .int(2)) } == "integer overflow")
        // The one quotient beyond the range wraps, as the official engine (Java's long) answers.
        #expect(try stdBinary(.int(.min), .divide, .int(-1)) == .int(.min))
        #expect(try stdBinary(.int(.min), .remainder, .int(-1)) == .int(0))
        #expect(errorMessage { try Stdlib.unary(.negate, .int(.min)) } == "integer overflow")
    }

    @Test("+ concatenates strings; lists and other mixes are errors (the official engine's answers)")
    func concatenation() throws {
        #expect(try stdBinary(.string("username"), .add, .string("@domain.com")) == .string("username@domain.com"))
        #expect(throws: RuleError.self) { try stdBinary(.list([.int(1)]), .add, .list([.int(2), .int(3)])) }
        #expect(errorMessage { try stdBinary(.string("a"), .add, .int(1)) }
            == "no matching overload for operator '+' on string and int")
        #expect(throws: RuleError.self) { try stdBinary(.bool(true), .add, .bool(true)) }
        #expect(throws: RuleError.self) { try stdBinary(.string("ab"), .subtract, .string("b")) }
    }

    @Test("== and != never fail; numbers compare by value across int and float")
    func equality() throws {
        #expect(try stdBinary(.int(1), .equal, .float(1.0)) == .bool(true))
        #expect(try stdBinary(.int(1), .equal, .string("1")) == .bool(false))
        #expect(try stdBinary(.null, .notEqual, .int(0)) == .bool(true))
        #expect(try stdBinary(stringSet("a", "b"), .equal, stringSet("b", "a")) == .bool(true))
        #expect(try stdBinary(.float(.nan), .equal, .float(.nan)) == .bool(false))
    }

    @Test("ordering: numbers, strings by code point, bytes; lists are an error (the official engine's answer)")
    func ordering() throws {
        #expect(try stdBinary(.int(1), .less, .float(2.5)) == .bool(true))
        #expect(try stdBinary(.float(2.0), .lessOrEqual, .int(2)) == .bool(true))
        #expect(try stdBinary(.int(3), .greater, .int(2)) == .bool(true))
        #expect(try stdBinary(.int(2), .greaterOrEqual, .int(3)) == .bool(false))
        #expect(try stdBinary(.string("a"), .less, .string("b")) == .bool(true))
        #expect(try stdBinary(.string("Z"), .less, .string("a")) == .bool(true))
        #expect(try stdBinary(.string("z"), .less, .string("é")) == .bool(true))
        #expect(try stdBinary(.string("ab"), .greater, .string("a")) == .bool(true))
        #expect(try stdBinary(.bytes([0x01]), .less, .bytes([0xFF])) == .bool(true))
        #expect(throws: RuleError.self) { try stdBinary(.list([.int(1), .int(2)]), .less, .list([.int(1), .int(3)])) }
    }

    @Test("NaN is unordered: every comparison is false")
    func nanOrdering() throws {
        for op in [BinaryOperator.less, .lessOrEqual, .greater, .greaterOrEqual] {
            #expect(try stdBinary(.float(.nan), op, .int(1)) == .bool(false))
        }
    }

    @Test("comparing types without an order is an error")
    func incomparable() {
        #expect(errorMessage { try stdBinary(.bool(false), .less, .bool(true)) }
            == "no matching overload for operator '<' on bool and bool")
        #expect(throws: RuleError.self) { try stdBinary(.int(1), .less, .string("2")) }
        #expect(throws: RuleError.self) { try stdBinary(.null, .greater, .int(0)) }
        #expect(throws: RuleError.self) { try stdBinary(.map([:]), .lessOrEqual, .map([:])) }
    }

    @Test("in: list element, map key, set element (rules.List, rules.Map, rules.Set)")
    func membership() throws {
        #expect(try stdBinary(.string("a"), .in, stringList("a", "b")) == .bool(true))
        #expect(try stdBinary(.string("c"), .in, stringList("a", "b")) == .bool(false))
        // A list holds identical elements, a set equal ones (the official engine's answers).
        #expect(try stdBinary(.float(1.0), .in, .list([.int(1)])) == .bool(false))
        #expect(try stdBinary(.float(1.0), .in, .set(RuleSet([.int(1)]))) == .bool(true))
        #expect(throws: RuleError.self) { try stdBinary(.int(1), .in, .map(["1": .null])) }
        #expect(try stdBinary(.string("k"), .in, .map(["k": .null])) == .bool(true))
        #expect(try stdBinary(.string("v"), .in, .map(["k": .string("v")])) == .bool(false))
        #expect(try stdBinary(.string("a"), .in, stringSet("a", "b")) == .bool(true))
        #expect(throws: RuleError.self) { try stdBinary(.string("a"), .in, .string("abc")) }
    }

    @Test("! negates booleans only; - negates numbers")
    func unary() throws {
        #expect(try Stdlib.unary(.not, .bool(true)) == .bool(false))
        #expect(try Stdlib.unary(.negate, .int(1)) == .int(-1))
        #expect(try Stdlib.unary(.negate, .float(2.5)) == .float(-2.5))
        #expect(errorMessage { try Stdlib.unary(.not, .int(1)) } == "no matching overload for operator '!' on int")
        #expect(throws: RuleError.self) { try Stdlib.unary(.negate, .string("a")) }
        #expect(throws: RuleError.self) { try Stdlib.unary(.not, .null) }
    }

    @Test("&& and || given two values are strict boolean operators")
    func strictLogic() throws {
        #expect(try stdBinary(.bool(true), .and, .bool(false)) == .bool(false))
        #expect(try stdBinary(.bool(false), .or, .bool(true)) == .bool(true))
        #expect(throws: RuleError.self) { try stdBinary(.bool(true), .and, .int(1)) }
    }
}

@Suite("Stdlib conversions")
struct StdlibConversionTests {
    @Test("int(): strings and floats (rules.Integer)")
    func toInt() throws {
        #expect(try stdFunction("int", .string("2")) == .int(2))
        #expect(try stdFunction("int", .float(2.0)) == .int(2))
        #expect(try stdFunction("int", .float(2.7)) == .int(2))
        #expect(try stdFunction("int", .float(-2.7)) == .int(-2))
        #expect(try stdFunction("int", .string("-15")) == .int(-15))
        #expect(throws: RuleError.self) { try stdFunction("int", .string("2.5")) }
        #expect(throws: RuleError.self) { try stdFunction("int", .string("two")) }
        #expect(throws: RuleError.self) { try stdFunction("int", .float(1e19)) }
        #expect(throws: RuleError.self) { try stdFunction("int", .float(.nan)) }
        #expect(throws: RuleError.self) { try stdFunction("int", .bool(true)) }
    }

    @Test("float(): strings and ints (rules.Float)")
    func toFloat() throws {
        #expect(try stdFunction("float", .string("2.2")) == .float(2.2))
        #expect(try stdFunction("float", .int(2)) == .float(2.0))
        #expect(try stdFunction("float", .int(2))?.typeName == "float")
        #expect(try stdFunction("float", .string(" 1e3 ")) == .float(1000))
        #expect(try stdFunction("float", .string("-Infinity")) == .float(-.infinity))
        #expect(throws: RuleError.self) { try stdFunction("float", .string("abc")) }
        #expect(throws: RuleError.self) { try stdFunction("float", .string("inf")) }
        #expect(throws: RuleError.self) { try stdFunction("float", .string("")) }
        #expect(throws: RuleError.self) { try stdFunction("float", .null) }
    }

    @Test("string(): booleans, ints, floats and null (rules.String); not bytes (the official engine fails it)")
    func toString() throws {
        #expect(try stdFunction("string", .bool(true)) == .string("true"))
        #expect(try stdFunction("string", .int(1)) == .string("1"))
        #expect(try stdFunction("string", .float(2.0)) == .string("2.0"))
        #expect(try stdFunction("string", .null) == .string("null"))
        #expect(try stdFunction("string", .string("x")) == .string("x"))
        #expect(try stdFunction("string", .path(RulePath("/a/b"))) == .string("/a/b"))
        #expect(throws: RuleError.self) { try stdFunction("string", .bytes(Array("hé".utf8))) }
        #expect(throws: RuleError.self) { try stdFunction("string", .list([])) }
        #expect(throws: RuleError.self) { try stdFunction("string", .map([:])) }
    }

    @Test("string() of a float prints as Java's Double.toString")
    func floatText() throws {
        let cases: [(Double, String)] = [
            (2.0, "2.0"), (123.45, "123.45"), (-0.5, "-0.5"), (0.001, "0.001"), (1e7, "1.0E7"),
            (12345678.9, "1.23456789E7"), (1e-4, "1.0E-4"), (1.5e-10, "1.5E-10"), (1e21, "1.0E21"),
            (-0.0, "-0.0"), (.infinity, "Infinity"), (-.infinity, "-Infinity"), (.nan, "NaN"),
        ]
        for (value, text) in cases {
            #expect(try stdFunction("string", .float(value)) == .string(text))
        }
    }

    @Test("there is no bool() (rules.Boolean documents one; the official engine fails every call)")
    func toBool() throws {
        #expect(try stdFunction("bool", .string("true")) == nil)
    }

    @Test("path(): from a string (rules.Path)")
    func toPath() throws {
        #expect(try stdFunction("path", .string("path/to/resource")) == .path(RulePath(segments: ["path", "to", "resource"])))
        #expect(try stdFunction("path", .string("/a/b")) == .path(RulePath(segments: ["a", "b"])))
    }
}

@Suite("Stdlib tables")
struct StdlibTableTests {
    @Test("functionArities lists every global and namespaced function")
    func functionArities() {
        let expected: [String: ClosedRange<Int>] = [
            "int": 1...1, "float": 1...1, "string": 1...1, "path": 1...1,
            "math.abs": 1...1, "math.ceil": 1...1, "math.floor": 1...1, "math.round": 1...1, "math.sqrt": 1...1,
            "math.pow": 2...2, "math.isNaN": 1...1,
            "timestamp.date": 3...3, "timestamp.value": 1...1,
            "duration.abs": 1...1, "duration.time": 4...4, "duration.value": 2...2,
            "latlng.value": 2...2,
            "hashing.crc32": 1...1, "hashing.crc32c": 1...1, "hashing.md5": 1...1, "hashing.sha256": 1...1,
        ]
        #expect(Stdlib.functionArities == expected)
        #expect(Stdlib.namespaces == ["math", "timestamp", "duration", "latlng", "hashing"])
    }

    @Test("methodArities spans every type's overloads")
    func methodArities() {
        #expect(Stdlib.methodArities["size"] == 0...0)
        #expect(Stdlib.methodArities["get"] == 2...2)
        #expect(Stdlib.methodArities["replace"] == 2...2)
        #expect(Stdlib.methodArities["hasAll"] == 1...1)
        #expect(Stdlib.methodArities["affectedKeys"] == 0...0)
        #expect(Stdlib.methodArities["bind"] == 1...1)
        #expect(Stdlib.methodArities["distance"] == 1...1)
        #expect(Stdlib.methodArities["toMillis"] == 0...0)
        #expect(Stdlib.methodArities["noSuchMethod"] == nil)
    }

    @Test("unknown names and wrong counts are errors; unknown functions are nil")
    func dispatchErrors() throws {
        #expect(errorMessage { try stdMethod(.int(1), "size") } == "no matching overload for 'size' on int")
        #expect(errorMessage { try stdMethod(.string("a"), "size", .int(1)) } == "'size' takes 0 arguments, got 1")
        #expect(errorMessage { try stdMethod(.string("a"), "matches", .int(1)) }
            == "no matching overload for 'matches' on string with (int)")
        #expect(errorMessage { try stdMethod(.null, "size") } == "Null value error.")
        #expect(errorMessage { try stdFunction("math.abs", .string("x")) } == "no matching overload for 'math.abs' with (string)")
        #expect(try stdFunction("math.cube", .int(1)) == nil)
        #expect(try stdFunction("nope") == nil)
        #expect(throws: RuleError.self) { try stdFunction("math.pow", .int(1)) }
    }

    @Test("properties exist only on maps (which the evaluator reads)")
    func properties() {
        #expect(errorMessage { try Stdlib.property(.latlng(RuleLatLng(latitude: 0, longitude: 0)), "latitude") }
            == "Property latitude is undefined on latlng.")
        #expect(throws: RuleError.self) { try Stdlib.property(.path(RulePath("/a")), "a") }
    }
}

@Suite("RuleValue description")
struct RuleValueDescriptionTests {
    @Test("values print as rules source would write them")
    func literals() {
        #expect(RuleValue.null.description == "null")
        #expect(RuleValue.list([.int(1), .float(2), .bool(true)]).description == "[1, 2.0, true]")
        #expect(RuleValue.string("it's\n").description == "'it\\'s\\n'")
        #expect(RuleValue.bytes([0x61, 0x00, 0xFF]).description == "b'a\\x00\\xFF'")
        #expect(RuleValue.map(["b": .int(1), "a": .null]).description == "{'a': null, 'b': 1}")
        #expect(stringSet("x").description == "['x'].toSet()")
        #expect(RuleValue.path(RulePath("/a/b")).description == "/a/b")
        #expect(RuleValue.timestamp(RuleTimestamp(seconds: 0, nanos: 5_000)).description == "1970-01-01T00:00:00.000005Z")
        #expect(RuleValue.duration(RuleDuration(seconds: 3600)).description == "3600s")
        #expect(RuleValue.duration(RuleDuration(seconds: 0, nanos: -1)).description == "-0.000000001s")
        #expect(RuleValue.latlng(RuleLatLng(latitude: 1, longitude: -2.5)).description == "latlng.value(1.0, -2.5)")
        #expect(RuleValue.mapDiff(MapDiff(left: ["a": .int(1)], right: [:])).description == "{'a': 1}.diff({})")
    }
}
