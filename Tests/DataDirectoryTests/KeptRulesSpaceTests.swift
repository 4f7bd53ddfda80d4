import DataDirectory
import EmulatorCore
import Foundation
import Testing

/// The one place Firestore, Storage and the Realtime Database keep the rules loaded through their APIs.
@Suite struct KeptRulesSpaceTests {
    private func rules(_ text: String, file: String?) -> KeptRules {
        KeptRules(files: [KeptRules.File(name: "x.rules", content: text)], fileText: file)
    }

    @Test func aLoadIsKeptThenAppliedAndComesBackAfterReopening() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-kept-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let space = KeptRulesSpace(space: "test-rules", durable: try DataDirectory(path: path))
            var applied: [String] = []
            #expect(try space.load(rules("a1", file: nil), as: "a") { applied.append("a1"); return 1 } == 1)
            try space.load(rules("b1", file: "file v1"), as: "b") { applied.append("b1") }
            // Rules that do not compile are applied (the emulator reports them) but not kept.
            try space.load(rules("a2", file: nil), as: "a", keep: false) { applied.append("a2") }
            #expect(applied == ["a1", "b1", "a2"])
        }
        let space = KeptRulesSpace(space: "test-rules", durable: try DataDirectory(path: path))
        let unchanged = try space.restorable { $0 == "b" ? "file v1" : nil }
        #expect(unchanged.map(\.key) == ["a", "b"])
        #expect(unchanged.map { $0.rules.files[0].content } == ["a1", "b1"])
        // The rules file that governs "b" changed while the suite was stopped: the file wins.
        #expect(try space.restorable { $0 == "b" ? "file v2" : nil }.map(\.key) == ["a"])
    }

    @Test func withoutADataFolderLoadsAreAppliedAndNothingIsKept() throws {
        let space = KeptRulesSpace(space: "test-rules", durable: nil)
        var applied = false
        try space.load(rules("r", file: nil), as: "a") { applied = true }
        #expect(applied)
        #expect(try space.restorable { _ in nil }.isEmpty)
    }
}
