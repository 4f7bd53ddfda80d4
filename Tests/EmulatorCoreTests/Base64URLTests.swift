import EmulatorCore
import Foundation
import Testing

@Suite struct Base64URLTests {
    @Test(arguments: [Data(), Data([0]), Data([0xFB, 0xFF]), Data([0xFB, 0xFF, 0xBF]), Data("{\"alg\":\"none\"}".utf8)])
    func encodesWithoutPaddingAndDecodesBack(_ data: Data) {
        let encoded = data.base64URLEncodedString()
        #expect(!encoded.contains("=") && !encoded.contains("+") && !encoded.contains("/"))
        #expect(encoded == data.base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: ""))
        #expect(Data(base64URLEncoded: encoded) == data)
    }

    @Test func decodesEitherAlphabetWithOrWithoutPadding() {
        #expect(Data(base64URLEncoded: "-_8") == Data([0xFB, 0xFF]))
        #expect(Data(base64URLEncoded: "-_8=") == Data([0xFB, 0xFF]))
        #expect(Data(base64URLEncoded: "+/8=") == Data([0xFB, 0xFF]))
        #expect(Data(base64URLEncoded: "eyJhIjoxfQ"[...]) == Data("{\"a\":1}".utf8))
        #expect(Data(base64URLEncoded: "abcde") == nil)  // a length no encoding has
        #expect(Data(base64URLEncoded: "a*b=") == nil)
    }
}
