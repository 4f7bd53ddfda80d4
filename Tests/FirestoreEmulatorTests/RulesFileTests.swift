import EmulatorCore
import Foundation
import HTTPTypes
import Testing

@testable import FirestoreEmulator

@Suite struct RulesFileTests {
    private static func rules(allow: Bool) -> String {
        """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            match /{document=**} { allow read, write: if \(allow); }
          }
        }
        """
    }

    @Test func rulesFileIsEnforcedAndReloadedWhenItChanges() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("firestore-\(UUID().uuidString).rules").path
        try Self.rules(allow: false).write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let emulator = try FirestoreEmulator(projectID: "demo-file", port: 0, rulesFile: path)
        try await FirestoreTestClient(emulator: emulator).run { session in
            #expect(try await session.request(.get, session.root + "/a/b", as: .user("u")).status == 403)
            #expect(try await session.request(.get, session.root + "/a/b", as: .owner).status == 404)
            try Self.rules(allow: true).write(toFile: path, atomically: true, encoding: .utf8)
            try await Task.sleep(for: .milliseconds(700))
            #expect(try await session.request(.get, session.root + "/a/b", as: .user("u")).status == 404)
            let other = "/v1/projects/other/databases/(default)/documents/a/b"
            #expect(try await session.request(.get, other, as: .anonymous).status == 404, "other projects are open")
        }
    }

    @Test func aRulesFileWithErrorsStopsTheEmulatorFromStarting() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("broken-\(UUID().uuidString).rules").path
        try "service cloud.firestore { match".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: RulesFileError.self) { try FirestoreEmulator(projectID: "demo-file", port: 0, rulesFile: path) }
        #expect(throws: RulesFileError.self) { try FirestoreEmulator(projectID: "demo-file", port: 0, rulesFile: path + ".missing") }
    }
}
