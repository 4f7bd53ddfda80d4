import EmulatorCore
import Foundation
import Synchronization
import Testing

@Suite struct WatchedFilesTests {
    /// The texts handed to a watcher's handler, in order.
    final class Seen: Sendable {
        private let changes = Mutex<[[String]]>([])

        func record(_ texts: [String]) { changes.withLock { $0.append(texts) } }

        /// Waits up to 5 s for `count` changes; the changes seen.
        func wait(for count: Int) async throws -> [[String]] {
            for _ in 0..<500 {
                let seen = changes.withLock { $0 }
                if seen.count >= count { return seen }
                try await Task.sleep(for: .milliseconds(10))
            }
            return changes.withLock { $0 }
        }

        var all: [[String]] { changes.withLock { $0 } }
    }

    @Test func changesAreSeenWhenTheyHappenAndUnreadableFilesKeepTheirText() async throws {
        let folder = NSTemporaryDirectory() + "hearth-watched-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = folder + "/a.rules"
        let second = folder + "/b.rules"
        try "one".write(toFile: first, atomically: true, encoding: .utf8)
        try "two".write(toFile: second, atomically: true, encoding: .utf8)
        let watched = try WatchedFiles(paths: [first, second])
        #expect(watched.texts == ["one", "two"])
        let seen = Seen()
        watched.watch { seen.record($0) }

        // Written in place, then replaced by a rename (as editors save).
        try "three".write(toFile: second, atomically: false, encoding: .utf8)
        #expect(try await seen.wait(for: 1) == [["one", "three"]])
        try "four".write(toFile: first, atomically: true, encoding: .utf8)
        #expect(try await seen.wait(for: 2) == [["one", "three"], ["four", "three"]])
        #expect(watched.texts == ["four", "three"])

        // Another file of the folder, or a file removed, changes nothing.
        try "other".write(toFile: folder + "/c.rules", atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(atPath: second)
        try await Task.sleep(for: .milliseconds(200))
        #expect(seen.all.count == 2, "a file that cannot be read keeps its last text")

        watched.stop()
        try "five".write(toFile: first, atomically: true, encoding: .utf8)
        try await Task.sleep(for: .milliseconds(200))
        #expect(seen.all.count == 2, "nothing is seen once stopped")
        #expect(throws: UnreadableFile(path: second)) { try WatchedFiles(paths: [second]) }
    }
}
