import EmulatorCore
import Foundation
import Testing

@Suite struct JSONTextTests {
    @Test func parsesWhatFoundationParses() throws {
        let text = #"""
            {"a": [1, -2, 3.5, 1e3, -0.25E-2, 9223372036854775807, 18446744073709551616],
             "s": "q\"b\\s\/\n\t\u00e9\ud83d\ude00 plain", "t": true, "f": false, "n": null, "o": {}, "e": []}
            """#
        let value = try JSONValue.parse(text)
        let foundation = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        #expect(value["s"]?.stringValue == foundation?["s"] as? String)
        #expect(value["a"] == [1, -2, .double(3.5), .double(1000), .double(-0.0025), .int(Int64.max), .double(1.8446744073709552e19)])
        #expect(value["t"] == true && value["f"] == false && value["n"] == .null && value["o"] == [:] && value["e"] == [])
    }

    @Test func serializesCompactlyWithSortedKeys() throws {
        let value: JSONValue = ["b": [1, .double(2.0), .double(0.5), "x/y", "\u{1}\"\n"], "a": .null, "c": ["z": true]]
        #expect(value.serialized() == #"{"a":null,"b":[1,2,0.5,"x/y","\u0001\"\n"],"c":{"z":true}}"#)
        let reparsed = try JSONValue.parse(value.serialized())
        #expect(reparsed == ["b": [1, 2, .double(0.5), "x/y", "\u{1}\"\n"], "a": .null, "c": ["z": true]])
    }

    @Test func rejectsMalformedText() {
        for text in ["", "{", "{\"a\" 1}", "[1,]", "[1 2]", "01", "1.", "\"\u{1}\"", "tru", "{\"a\":1}x", "\"\\x\"", "-"] {
            #expect(throws: JSONSyntaxError.self, "\(text)") { try JSONValue.parse(text) }
        }
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(deep) }
    }

    @Test func rejectsNumbersBeyondTheDoubleRange() throws {
        for text in ["1e400", "-1e400", String(repeating: "9", count: 400), "[1, 2e308]"] {
            #expect(throws: JSONSyntaxError.self, "\(text)") { try JSONValue.parse(text) }
        }
        #expect(try JSONValue.parse("1.7976931348623157e308") == .double(.greatestFiniteMagnitude))
        #expect(try JSONValue.parse("1e-400") == .double(0), "underflow is zero, as in every JSON reader")
    }
}
