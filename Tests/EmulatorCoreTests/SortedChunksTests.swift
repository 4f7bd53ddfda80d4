@testable import EmulatorCore
import Testing

/// Integers in ascending order, in chunks of 8 (split at 16), so a few hundred elements make many chunks.
private enum SmallChunks: ChunkOrder {
    static var chunkLimit: Int { 8 }
    static func precedes(_ a: Int, _ b: Int) -> Bool { a < b }
}

@Suite struct SortedChunksTests {
    @Test func randomInsertsAndRemovesKeepTheSetInOrderAndEveryChunkNearItsSize() {
        var random = SplitMix64(seed: 22)
        var chunks = SortedChunks<SmallChunks>()
        var expected = Set<Int>()
        for step in 0..<20_000 {
            let value = Int.random(in: 0..<2_000, using: &random)
            if Int.random(in: 0..<3, using: &random) == 0 {
                #expect(chunks.remove(value) == (expected.remove(value) != nil))
            } else {
                #expect(chunks.insert(value) == expected.insert(value).inserted)
            }
            guard step % 997 == 0 else { continue }
            #expect(Array(chunks) == expected.sorted())
            #expect(chunks.count == expected.count)
            #expect(chunks.firsts == chunks.chunks.map { $0[0] })
            for chunk in chunks.chunks {
                #expect(!chunk.isEmpty && chunk.count <= 2 * SmallChunks.chunkLimit)
                // Grown a half limit at a time, and split into buffers of their own size: never doubled
                // past the split point (the allocator may round a buffer up a little).
                #expect(chunk.capacity <= 2 * SmallChunks.chunkLimit + 8)
            }
        }
        #expect(Array(chunks.elements(from: 1_000)) == expected.sorted().filter { $0 >= 1_000 })
    }

    @Test func elementsInOrderAreAppendedIntoFullChunks() {
        var chunks = SortedChunks<SmallChunks>()
        for value in 0..<1_000 { chunks.insert(value) }
        #expect(Array(chunks) == Array(0..<1_000))
        #expect(chunks.chunks.dropLast().allSatisfy { $0.count >= SmallChunks.chunkLimit })
        #expect(chunks.chunks.allSatisfy { $0.capacity <= 2 * SmallChunks.chunkLimit + 8 })
    }
}
