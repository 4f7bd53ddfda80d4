import Testing

@testable import SecurityRules

@Suite("Stdlib math")
struct StdlibMathTests {
    @Test("abs keeps the type (rules.math examples)")
    func abs() throws {
        #expect(try stdFunction("math.abs", .int(-1)) == .int(1))
        #expect(try stdFunction("math.abs", .int(1)) == .int(1))
        #expect(try stdFunction("math.abs", .float(-2.5)) == .float(2.5))
        #expect(try stdFunction("math.abs", .float(-2.5))?.typeName == "float")
        #expect(throws: RuleError.self) { try stdFunction("math.abs", .int(.min)) }
    }

    @Test("ceil and floor return floats, round an int (rules.math examples, types as the official engine answers)")
    func rounding() throws {
        let cases: [(String, Double, Int64)] = [
            ("math.ceil", 2.0, 2), ("math.ceil", 2.1, 3), ("math.ceil", 2.7, 3), ("math.ceil", -2.7, -2),
            ("math.floor", 1.9, 1), ("math.floor", 2.0, 2), ("math.floor", 2.7, 2), ("math.floor", -2.1, -3),
            ("math.round", 1.9, 2), ("math.round", 2.4, 2), ("math.round", 2.5, 3), ("math.round", -2.5, -2),
            ("math.round", -2.6, -3), ("math.round", 0.49999999999999994, 0),
        ]
        for (function, input, output) in cases {
            let expected: RuleValue = function == "math.round" ? .int(output) : .float(Double(output))
            let result = try stdFunction(function, .float(input))
            #expect(result == expected && result?.typeName == expected.typeName, "\(function)(\(input))")
        }
        #expect(try stdFunction("math.floor", .int(5))?.typeName == "float")
        #expect(try stdFunction("math.ceil", .float(.infinity)) == .float(.infinity))
        #expect(throws: RuleError.self) { try stdFunction("math.round", .float(1e300)) }
    }

    @Test("pow and sqrt return floats (rules.math examples)")
    func powers() throws {
        #expect(try stdFunction("math.pow", .int(2), .int(2)) == .float(4))
        #expect(try stdFunction("math.pow", .float(1.5), .int(2)) == .float(2.25))
        #expect(try stdFunction("math.pow", .int(4), .float(0.5)) == .float(2))
        #expect(try stdFunction("math.sqrt", .int(4)) == .float(2.0))
        #expect(try stdFunction("math.sqrt", .float(2.25)) == .float(1.5))
        #expect(try stdFunction("math.sqrt", .int(4))?.typeName == "float")
    }

    @Test("isNaN (rules.math examples); isInfinite fails as in the official engine")
    func tests() throws {
        #expect(try stdFunction("math.isInfinite", .float(.infinity)) == nil)
        #expect(try stdFunction("math.isNaN", .float(.nan)) == .bool(true))
        #expect(try stdFunction("math.isNaN", .int(100)) == .bool(false))
        let nan = try stdBinary(.float(0), .divide, .int(0))
        #expect(try stdFunction("math.isNaN", nan) == .bool(true))
        #expect(throws: RuleError.self) { try stdFunction("math.isNaN", .string("NaN")) }
    }
}

@Suite("Stdlib hashing")
struct StdlibHashingTests {
    /// Hexadecimal bytes.
    private func bytes(_ hex: String) -> RuleValue {
        let digits = Array(hex.utf8)
        return .bytes(stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16)! })
    }

    @Test("standard check values: CRC-32, CRC-32C of '123456789'; MD5 of ''; SHA-256 of 'abc'")
    func vectors() throws {
        #expect(try stdFunction("hashing.crc32", .string("123456789")) == bytes("CBF43926"))
        #expect(try stdFunction("hashing.crc32c", .string("123456789")) == bytes("E3069283"))
        #expect(try stdFunction("hashing.md5", .string("")) == bytes("d41d8cd98f00b204e9800998ecf8427e"))
        #expect(try stdFunction("hashing.sha256", .string("abc"))
            == bytes("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
    }

    @Test("a string hashes as its UTF-8 bytes")
    func stringsAreUTF8() throws {
        for function in ["hashing.crc32", "hashing.crc32c", "hashing.md5", "hashing.sha256"] {
            #expect(try stdFunction(function, .string("€")) == (try stdFunction(function, .bytes([0xE2, 0x82, 0xAC]))))
        }
        #expect(throws: RuleError.self) { try stdFunction("hashing.md5", .int(1)) }
    }
}

@Suite("Stdlib latlng")
struct StdlibLatLngTests {
    @Test("latlng.value, latitude(), longitude() (rules.latlng example)")
    func value() throws {
        let point = try #require(try stdFunction("latlng.value", .float(45.0), .float(90.0)))
        #expect(try stdMethod(point, "latitude") == .float(45.0))
        #expect(try stdMethod(point, "longitude") == .float(90.0))
        #expect(try stdFunction("latlng.value", .int(1), .int(2)) == .latlng(RuleLatLng(latitude: 1, longitude: 2)))
        #expect(throws: RuleError.self) { try stdFunction("latlng.value", .float(91), .float(0)) }
        #expect(throws: RuleError.self) { try stdFunction("latlng.value", .float(0), .float(-181)) }
    }

    @Test("distance() in meters along great circles")
    func distance() throws {
        let origin = RuleValue.latlng(RuleLatLng(latitude: 0, longitude: 0))
        let meridianDegree = RuleValue.latlng(RuleLatLng(latitude: 1, longitude: 0))
        let antipode = RuleValue.latlng(RuleLatLng(latitude: 0, longitude: 180))
        let radius = RuleLatLng.earthRadiusMeters
        guard case .float(let degree) = try stdMethod(origin, "distance", meridianDegree),
            case .float(let half) = try stdMethod(origin, "distance", antipode)
        else { Issue.record("distance is not a float"); return }
        #expect(Swift.abs(degree - radius * .pi / 180) < 1e-6)
        #expect(Swift.abs(half - radius * .pi) < 1e-6)
        #expect(try stdMethod(origin, "distance", origin) == .float(0))
        #expect(throws: RuleError.self) { try stdMethod(origin, "distance", .int(0)) }
    }
}
