import EmulatorHTTP
import Testing

@Suite struct FormFieldsTests {
    /// What a form body or query holds, as the URL standard's form parser reads it: empty parts skipped, the
    /// first `=` splits, a part without one is a name with an empty value, `+` and escapes decoded.
    @Test(arguments: [
        ("", [String]()),
        ("a=1", ["a", "1"]),
        ("a=1&b=two+words", ["a", "1", "b", "two words"]),
        ("&&a=1&&", ["a", "1"]),
        ("flag&b=", ["flag", "", "b", ""]),
        ("a==b=c", ["a", "=b=c"]),
        ("=value", ["", "value"]),
        ("req0___data__=%7B%22x%22%3A1%7D&count=1", ["req0___data__", "{\"x\":1}", "count", "1"]),
        ("caf%C3%A9=%E2%82%AC+1&%zz=100%", ["café", "€ 1", "%zz", "100%"]),
        ("é=ü&ß", ["é", "ü", "ß", ""]),
    ])
    func parsesPairsInOrder(_ text: String, _ flattened: [String]) {
        let pairs = FormFields(parsing: text).pairs
        #expect(pairs.flatMap { [$0.name, $0.value] } == flattened)
    }

    @Test func looksUpTheFirstValueAndAllValues() {
        let fields = FormFields(parsing: "a=1&b=2&a=3")
        #expect(fields["a"] == "1")
        #expect(fields["missing"] == nil)
        #expect(fields.all("a") == ["1", "3"])
    }
}
