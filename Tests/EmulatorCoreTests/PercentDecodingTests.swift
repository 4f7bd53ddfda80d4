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
