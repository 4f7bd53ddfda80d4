import DataDirectory
import EmulatorCore
import Foundation
import Testing

@Suite struct DataDirectoryTests {
    private func folder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("hearth-data-\(UUID().uuidString)").path
    }

    private func entries(_ store: DataDirectory, _ space: String) throws -> [String: [UInt8]] {
        var result: [String: [UInt8]] = [:]
        try store.scan(space) { key, value in result[key] = Array(value) }
        return result
    }

    @Test func entriesComeBackAfterReopening() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let store = try DataDirectory(path: path)
            try store.write([
                .put(space: "a", key: "k1", value: [1, 2, 3]), .put(space: "a", key: "k2", value: []),
                .put(space: "b", key: "x", value: [9]), .put(space: "ab", key: "y", value: [7]),
            ])
            try store.write([.delete(space: "a", key: "k1"), .put(space: "a", key: "k3", value: [4])])
        }
        let store = try DataDirectory(path: path)
        #expect(try entries(store, "a") == ["k2": [], "k3": [4]])
        #expect(try store.spaces(prefix: "a") == ["a", "ab"])
        #expect(try store.spaces(prefix: "") == ["a", "ab", "b"])
        try store.write([.deleteSpace("a")])
        #expect(try entries(store, "a").isEmpty)
        #expect(try store.spaces(prefix: "a") == ["ab"])
    }

    @Test func keysComeInByteOrder() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try DataDirectory(path: path)
        let keys = ["b", "a/b", "a", "é", "Z", "a\u{1}"]
        try store.write(keys.map { .put(space: "s", key: $0, value: [0]) })
        var seen: [String] = []
        try store.scan("s") { key, _ in seen.append(key) }
        #expect(seen == keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    }

    @Test func aSecondStoreOnTheFolderIsRefused() throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = try DataDirectory(path: path)
        #expect {
            _ = try DataDirectory(path: path)
        } throws: { error in
            "\(error)".contains("is in use by another hearth process (pid \(getpid()))")
        }
        _ = first
    }
}
