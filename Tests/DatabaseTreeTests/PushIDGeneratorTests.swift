import Testing

import DatabaseTree

@Suite struct PushIDGeneratorTests {
    private static let alphabet = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"

    @Test func idsAreTwentyCharactersOfTheAlphabetInASCIIOrder() {
        #expect(Self.alphabet.utf8.elementsEqual(Self.alphabet.utf8.sorted()))
        let id = PushIDGenerator().next(now: 1_700_000_000_000)
        #expect(id.count == 20)
        #expect(id.allSatisfy { Self.alphabet.contains($0) })
    }

    @Test func theFirstEightCharactersAreTheTime() {
        let generator = PushIDGenerator()
        #expect(generator.next(now: 0).hasPrefix("--------"))
        #expect(generator.next(now: 65).hasPrefix("------00"))  // 65 = 1·64 + 1; "0" is digit 1
        // 1_700_000_000_000 ms in base 64, most significant digit first.
        var time: Int64 = 1_700_000_000_000
        var digits: [Character] = []
        for _ in 0..<8 {
            digits.insert(Array(Self.alphabet)[Int(time % 64)], at: 0)
            time /= 64
        }
        #expect(generator.next(now: 1_700_000_000_000).hasPrefix(String(digits)))
    }

    @Test func idsOfOneMillisecondAndLaterOnesSortInOrder() {
        let generator = PushIDGenerator()
        var ids: [String] = []
        for _ in 0..<1000 { ids.append(generator.next(now: 1_700_000_000_000)) }
        for now: Int64 in [1_700_000_000_001, 1_700_000_000_001, 1_699_999_999_999, 1_700_000_000_500] {
            ids.append(generator.next(now: now))
        }
        #expect(Set(ids).count == ids.count)
        #expect(ids == ids.sorted())
        #expect(ids[0].prefix(8) == ids[999].prefix(8))
    }
}
