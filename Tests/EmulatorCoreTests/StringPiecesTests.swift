import EmulatorCore
import Testing

@Suite struct StringPiecesTests {
    /// The same pieces as the standard library's split that keeps empty pieces.
    @Test(arguments: ["", "a", "/", "a/b", "/a//b/", "projects/p/databases/(default)/documents/c/d", "é/ü/€", "//"])
    func piecesAreThoseOfASplitKeepingEmptyOnes(_ text: String) {
        let expected = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        #expect(text.pieces(separatedBy: UInt8(ascii: "/")) == expected)
    }
}
