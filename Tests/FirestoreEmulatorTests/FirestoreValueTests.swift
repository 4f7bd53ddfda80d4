import EmulatorCore
import Testing

@testable import FirestoreEmulator

@Suite struct FirestoreValueTests {
    @Test func crossTypeOrderFollowsTypeOrder() {
        let ascending: [FirestoreValue] = [
            .null, .boolean(false), .boolean(true), .double(.nan), .double(-.infinity), .integer(-1), .double(0.5),
            .integer(1), .timestamp(seconds: 0, nanos: 1), .string("a"), .string("b"), .bytes([0]),
            .reference("projects/p/databases/(default)/documents/c/a"), .geoPoint(latitude: 0, longitude: 0),
            .array([.integer(1)]), .array([.integer(1), .integer(2)]), .map(["a": .integer(1)]),
        ]
        for (index, value) in ascending.enumerated() {
            for later in ascending[(index + 1)...] {
                #expect(FirestoreValue.compare(value, later) < 0, "\(value) < \(later)")
                #expect(FirestoreValue.compare(later, value) > 0)
            }
        }
    }

    /// Index searches trust `orderPrefix` wherever two differ, so it must never contradict `compare`.
    @Test func orderPrefixesNeverContradictTheValueOrder() {
        var generator = SplitMix64(seed: 22)
        let edges: [FirestoreValue] = [
            .null, .boolean(false), .boolean(true), .double(.nan), .double(-.infinity), .double(.infinity),
            .double(-0.0), .integer(0), .double(0.5), .integer(1), .double(1.0), .double(1.0000000000000002),
            .integer(Int64.max), .integer(Int64.max - 1), .double(9.223372036854775807e18), .integer(Int64.min),
            .integer(1 << 53), .integer(1 << 53 + 1), .double(9_007_199_254_740_992),
            .timestamp(seconds: -62_135_596_800, nanos: 0), .timestamp(seconds: 253_402_300_799, nanos: 999_999_999),
            .timestamp(seconds: 0, nanos: 511), .timestamp(seconds: 0, nanos: 512), .timestamp(seconds: Int64.max, nanos: 5),
            .timestamp(seconds: Int64.min, nanos: 7), .string(""), .string("a"), .string("a\u{0}"), .string("documen"),
            .string("document number 1"), .string("document number 2"), .string("\u{FF5E}"), .string("\u{1F600}"),
            .bytes([]), .bytes([0]), .bytes([0, 0, 0, 0, 0, 0, 0, 1]), .bytes([0, 0, 0, 0, 0, 0, 0, 0, 2]),
            .reference("projects/p/databases/d/documents/c/a"), .geoPoint(latitude: -1, longitude: 5),
            .geoPoint(latitude: -1, longitude: 6), .array([]), .array([.integer(1)]), .array([.integer(1), .string("b")]),
            .array([.double(1), .string("a")]), .array([.string("x"), .integer(2)]), .map([:]), .map(["a": .null]),
        ]
        func random() -> FirestoreValue {
            switch generator.next() % 8 {
            case 0: .integer(Int64(bitPattern: generator.next()) >> (generator.next() % 64))
            case 1: .double(Double(Int64(bitPattern: generator.next()) >> 20) / 1024)
            case 2: .integer(Int64(generator.next() % 5))
            case 3: .string("document number \(generator.next() % 50)")
            case 4: .timestamp(seconds: Int64(generator.next() % 4_000_000_000), nanos: Int32(generator.next() % 1_000_000_000))
            case 5: .array([.integer(Int64(generator.next() % 3)), .integer(Int64(generator.next() % 3))])
            case 6: .string(String(UnicodeScalar(UInt8(97 + generator.next() % 3))) + (generator.next() % 2 == 0 ? "" : "\u{0}"))
            default: edges[Int(generator.next() % UInt64(edges.count))]
            }
        }
        let values = edges + (0..<400).map { _ in random() }
        for a in values {
            for b in values {
                let order = FirestoreValue.compare(a, b)
                if order < 0 { #expect(a.orderPrefix <= b.orderPrefix, "\(a) < \(b)") }
                if order == 0 { #expect(a.orderPrefix == b.orderPrefix, "\(a) == \(b)") }
            }
        }
    }

    @Test func numbersCompareAcrossIntegerAndDouble() {
        #expect(FirestoreValue.integer(1) == .double(1.0))
        #expect(FirestoreValue.compare(.integer(1), .double(1.0)) == 0)
        #expect(FirestoreValue.double(.nan) != .double(.nan))
        #expect(FirestoreValue.compare(.double(.nan), .double(.nan)) == 0)
        #expect(FirestoreValue.compare(.integer(Int64.max), .double(9.223372036854775807e18)) < 0)
        #expect(FirestoreValue.compare(.double(-0.0), .double(0.0)) == 0)
    }

    @Test func stringsOrderByUTF8Bytes() {
        // U+FF5E (3 UTF-8 bytes) sorts after U+1F600 in UTF-16 but before it in UTF-8.
        #expect(FirestoreValue.compare(.string("\u{FF5E}"), .string("\u{1F600}")) < 0)
    }

    @Test func referencesOrderSegmentwiseWithNumericIDsFirst() {
        let base = "projects/p/databases/d/documents/c/"
        #expect(FirestoreValue.compare(.reference(base + "__id2__"), .reference(base + "__id10__")) < 0)
        #expect(FirestoreValue.compare(.reference(base + "__id10__"), .reference(base + "a")) < 0)
        #expect(FirestoreValue.compare(.reference(base + "a"), .reference(base + "a/sub/x")) < 0)
    }

    @Test func jsonRoundTrips() throws {
        let values: [FirestoreValue] = [
            .null, .boolean(true), .integer(-42), .double(1.5), .double(.infinity), .string("hé"), .bytes([1, 2, 255]),
            .timestamp(seconds: 1_700_000_000, nanos: 123_456_000), .reference("projects/p/databases/(default)/documents/a/b"),
            .geoPoint(latitude: 1, longitude: -2), .array([.integer(1), .string("x")]), .map(["k": .array([])]),
        ]
        for value in values {
            let decoded = try FirestoreValue(json: value.json)
            #expect(FirestoreValue.compare(decoded, value) == 0, "\(value.json.serialized())")
        }
        #expect(FirestoreValue.integer(7).json == ["integerValue": "7"])
        #expect(try FirestoreValue(json: ["integerValue": 7]) == .integer(7))
        #expect(try FirestoreValue(json: ["doubleValue": "NaN"]).isNaN)
        #expect(
            FirestoreValue.timestamp(seconds: 1_704_164_645, nanos: 123_456_000).json
                == ["timestampValue": "2024-01-02T03:04:05.123456Z"])
        #expect(try FirestoreValue(json: ["timestampValue": "2024-01-02T03:04:05.1Z"]) == .timestamp(seconds: 1_704_164_645, nanos: 100_000_000))
    }

    @Test func timestampsAreWrittenWithTheDigitsTheirNanosecondsNeed() {
        let cases: [(seconds: Int64, nanos: Int32, text: String)] = [
            (0, 0, "1970-01-01T00:00:00Z"),
            (-1, 999_999_999, "1969-12-31T23:59:59.999999999Z"),
            (-62_135_596_800, 0, "0001-01-01T00:00:00Z"),
            (253_402_300_799, 999_999_000, "9999-12-31T23:59:59.999999Z"),
            (951_782_400, 500_000_000, "2000-02-29T00:00:00.500Z"),
            (1_704_164_645, 1, "2024-01-02T03:04:05.000000001Z"),
            (1_704_164_645, 120_000, "2024-01-02T03:04:05.000120Z"),
        ]
        for (seconds, nanos, text) in cases {
            #expect(FirestoreValue.formatTimestamp(seconds: seconds, nanos: nanos) == text)
            #expect(FirestoreValue.parseTimestamp(text).map { [$0.0, Int64($0.1)] } == [seconds, Int64(nanos)])
        }
    }

    @Test func invalidValuesAreInvalidArgument() {
        for bad: JSONValue in [
            [:], ["integerValue": "x"], ["stringValue": 1], ["fooValue": 1], ["booleanValue": true, "stringValue": "a"],
            ["timestampValue": "yesterday"],
        ] {
            #expect(throws: FirestoreError.self) { try FirestoreValue(json: bad) }
        }
    }
}
