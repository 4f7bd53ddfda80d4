import Foundation
import Testing

@testable import DatabaseTree

@Suite struct TmpJSBitsTests {
    @Test func matchesNode() throws {
        let text = try String(contentsOfFile: "/tmp/hq/vectors.txt", encoding: .utf8)
        var bad = 0
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            let bits = UInt64(parts[0], radix: 16)!
            let expected = UInt64(parts[1], radix: 16)!
            let got = DataNode.javaScriptBits(Double(bitPattern: bits))
            if got != expected { bad += 1; if bad < 5 { print("MISMATCH", parts[0], parts[1], String(got, radix: 16)) } }
        }
        #expect(bad == 0)
    }
}
