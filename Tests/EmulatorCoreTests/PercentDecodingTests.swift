import EmulatorCore
import Foundation
import Testing

@Suite struct PercentDecodingTests {
    @Test(arguments: [
        "", "plain", "a%2Fb", "%E2%82%AC", "%e2%82%ac", "100%", "%2", "%zz", "%C3", "%FF", "a+b", "%00", "%%41",
        "caf%C3%A9/x%20y", "(default)",
    ])
    func decodesAsFoundationDoes(_ text: String) {
        #expect(text.percentDecoded == text.removingPercentEncoding)
        #expect(text[...].percentDecoded == text.removingPercentEncoding)
    }
}

@Suite struct FormDecodingTests {
    @Test(arguments: [
        ("a+b", "a b"), ("a%2Bb", "a+b"), ("x%20y+z", "x y z"), ("plain", "plain"), ("", ""),
        ("100%+sure", "100% sure"),  // an escape that does not decode stays, with its + as a space
        ("%E2%82%AC+1", "€ 1"),
    ])
    func plusIsASpaceThenEscapesDecode(_ text: String, _ expected: String) {
        #expect(text.formDecoded == expected)
        #expect(text[...].formDecoded == expected)
    }
}
