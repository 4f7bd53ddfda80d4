import Testing

@testable import FirestoreEmulator

@Suite struct FieldPathTests {
    @Test func parsesPlainAndQuotedSegments() {
        #expect(FieldPath(parsing: "a.b.c")?.segments == ["a", "b", "c"])
        #expect(FieldPath(parsing: "`my.field`.x")?.segments == ["my.field", "x"])
        #expect(FieldPath(parsing: "`a\\`b`")?.segments == ["a`b"])
        #expect(FieldPath(parsing: "__name__") == .documentName)
    }

    @Test(arguments: ["", "a..b", ".a", "a.", "`a", "`a`b", "a`b`"])
    func rejectsMalformedPaths(text: String) {
        #expect(FieldPath(parsing: text) == nil)
    }

    @Test func printsCanonically() {
        #expect(FieldPath(segments: ["a", "b"]).description == "a.b")
        #expect(FieldPath(segments: ["my.field", "1x", "ok_1"]).description == "`my.field`.`1x`.ok_1")
        #expect(FieldPath(parsing: FieldPath(segments: ["we`ird\\"]).description)?.segments == ["we`ird\\"])
    }

    @Test func looksUpNestedValues() {
        let fields: [String: FirestoreValue] = ["a": .map(["b": .integer(1)]), "c": .string("x")]
        #expect(FirestoreValue.value(at: FieldPath(segments: ["a", "b"]), in: fields) == .integer(1))
        #expect(FirestoreValue.value(at: FieldPath(segments: ["c", "d"]), in: fields) == nil)
        #expect(FieldPath(segments: ["a"]).isPrefix(of: FieldPath(segments: ["a", "b"])))
        #expect(!FieldPath(segments: ["a", "b"]).isPrefix(of: FieldPath(segments: ["a"])))
    }
}
