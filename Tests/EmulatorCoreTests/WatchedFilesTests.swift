import EmulatorCore
import Foundation
import Testing

@Suite struct WatchedFilesTests {
    @Test func changesAreSeenOnceAndUnreadableFilesKeepTheirText() throws {
        let folder = NSTemporaryDirectory() + "hearth-watched-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let first = folder + "/a.rules"
        let second = folder + "/b.rules"
        try "one".write(toFile: first, atomically: true, encoding: .utf8)
        try "two".write(toFile: second, atomically: true, encoding: .utf8)
        let watched = try WatchedFiles(paths: [first, second], interval: 0)
        #expect(watched.texts == ["one", "two"])
        #expect(watched.changes() == nil)
        try "three".write(toFile: second, atomically: true, encoding: .utf8)
        #expect(watched.changes() == ["one", "three"])
        #expect(watched.changes() == nil)
        try FileManager.default.removeItem(atPath: first)
        #expect(watched.changes() == nil, "a file that cannot be read keeps its last text")
        #expect(throws: UnreadableFile(path: first)) { try WatchedFiles(paths: [first]) }
        let slow = try WatchedFiles(paths: [second], interval: 3600)
        try "four".write(toFile: second, atomically: true, encoding: .utf8)
        #expect(slow.changes() == nil, "not looked at before the interval passes")
    }
}
