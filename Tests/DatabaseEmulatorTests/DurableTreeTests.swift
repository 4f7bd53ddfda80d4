import DataDirectory
import DatabaseEmulator
import EmulatorCore
import EmulatorHTTP
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

/// Trees in a data folder (`--data-dir`): an emulator started again on the folder serves what the last one
/// acknowledged, whether it was kept as journal entries or as a compacted tree.
@Suite struct DurableTreeTests {
    private func folder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("hearth-database-\(UUID().uuidString)").path
    }

    /// Runs `body` against an emulator on `folder`, closing the folder afterwards as a stopped suite does.
    private func withEmulator(
        on folder: String, _ body: @escaping @Sendable (any TestClientProtocol, DatabaseEmulator) async throws -> Void
    ) async throws {
        let store = try DataDirectory(path: folder)
        defer { store.close() }
        let emulator = try DatabaseEmulator(projectID: "demo-durable", port: 0, durable: store)
        let app = Application(responder: emulator.responder)
        try await app.test(.router) { client in try await body(client, emulator) }
    }

    private func export(_ client: any TestClientProtocol, ns: String) async throws -> String {
        String(buffer: try await client.execute(uri: "/.json?ns=\(ns)&format=export", method: .get).body)
    }

    @Test func aRestartServesEveryAcknowledgedWrite() async throws {
        let folder = folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let before = try await withEmulatorExport(on: folder) { client in
            _ = try await client.execute(
                uri: "/users/u1.json?ns=a", method: .put,
                body: ByteBuffer(string: #"{"name":"Ada","at":{".sv":"timestamp"},".priority":3}"#))
            _ = try await client.execute(uri: "/users.json?ns=a", method: .patch, body: ByteBuffer(string: #"{"u1/age":37,"u2":{"name":"Bo"}}"#))
            _ = try await client.execute(uri: "/users/u2.json?ns=a", method: .delete)
            _ = try await client.execute(uri: "/n.json?ns=a", method: .put, body: ByteBuffer(string: "1"))
            _ = try await client.execute(uri: "/n.json?ns=a", method: .put, body: ByteBuffer(string: #"{".sv":{"increment":41}}"#))
            _ = try await client.execute(uri: "/other.json?ns=b", method: .put, body: ByteBuffer(string: #""x""#))
            // A key that starts with a combining mark: after a '/', text would join the two into one character.
            _ = try await client.execute(uri: "/marks/%CC%81x.json?ns=a", method: .put, body: ByteBuffer(string: "7"))
        }
        #expect(before["a"]?.contains(#""age":37"#) == true)
        try await withEmulator(on: folder) { client, _ in
            let a = try await export(client, ns: "a")
            let b = try await export(client, ns: "b")
            #expect(a == before["a"] && b == before["b"])
            #expect(a.contains(#""n":42"#))
            let mark = try await client.execute(uri: "/marks/%CC%81x.json?ns=a", method: .get)
            #expect(String(buffer: mark.body) == "7")
        }
    }

    @Test func aJournalLargerThanTheTreeBecomesTheTree() async throws {
        let folder = folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let big = String(repeating: "x", count: 100_000)
        let before = try await withEmulatorExport(on: folder) { client in
            // 30 writes of 100 kB over 3 keys: the journal passes 1 MiB and is compacted, then grows again.
            for index in 0..<30 {
                _ = try await client.execute(uri: "/k\(index % 3).json?ns=a", method: .put, body: ByteBuffer(string: "\"\(big)\(index)\""))
            }
        }
        let entries = try DataDirectory(path: folder)
        var keys: [String] = []
        try entries.scan("database/a") { key, _ in keys.append(key) }
        entries.close()
        #expect(keys.first == "tree" && keys.count < 30)
        try await withEmulator(on: folder) { client, _ in
            let a = try await export(client, ns: "a")
            #expect(a == before["a"])
        }
    }

    @Test func restoresAndImportsAreKept() async throws {
        let folder = folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let before = try await withEmulatorExport(on: folder) { client, emulator in
            _ = try await client.execute(uri: "/a.json?ns=a", method: .put, body: ByteBuffer(string: "1"))
            let checkpoint = await emulator.checkpoint()
            _ = try await client.execute(uri: "/b.json?ns=a", method: .put, body: ByteBuffer(string: "2"))
            _ = try await client.execute(uri: "/c.json?ns=c", method: .put, body: ByteBuffer(string: "3"))
            try await emulator.restore(checkpoint)
            let imports = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-import-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: imports, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: imports) }
            try Data(#"{"imported":{".value":true,".priority":"p"}}"#.utf8).write(to: imports.appendingPathComponent("d.json"))
            try await emulator.importData(from: imports, progress: TransferProgress())
        }
        #expect(before["a"] == #"{"a":1}"# && before["c"] == "null")
        try await withEmulator(on: folder) { client, _ in
            for namespace in ["a", "c", "d"] {
                let text = try await export(client, ns: namespace)
                #expect(text == before[namespace], "\(namespace)")
            }
        }
    }

    @Test func rulesLoadedThroughTheAPIAreKept() async throws {
        let folder = folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let rules = #"{"rules": {".read": false, "open": {".read": true}}}"#
        try await withEmulator(on: folder) { client, _ in
            let put = try await client.execute(
                uri: "/.settings/rules.json?ns=a", method: .put, headers: [.authorization: "Bearer owner"], body: ByteBuffer(string: rules))
            #expect(put.status == .ok)
        }
        try await withEmulator(on: folder) { client, _ in
            let kept = try await client.execute(uri: "/.settings/rules.json?ns=a", method: .get, headers: [.authorization: "Bearer owner"])
            #expect(String(buffer: kept.body) == rules)
            let read = try await client.execute(uri: "/x.json?ns=a", method: .get)
            #expect(read.status == .unauthorized)
        }
    }

    /// Runs `body` on an emulator on `folder` and returns the export of each namespace it has afterwards.
    private func withEmulatorExport(
        on folder: String, _ body: @escaping @Sendable (any TestClientProtocol, DatabaseEmulator) async throws -> Void
    ) async throws -> [String: String] {
        let exports = Mutex<[String: String]>([:])
        try await withEmulator(on: folder) { client, emulator in
            try await body(client, emulator)
            for namespace in ["a", "b", "c", "d"] {
                let text = try await export(client, ns: namespace)
                exports.withLock { $0[namespace] = text }
            }
        }
        return exports.withLock { $0 }
    }

    private func withEmulatorExport(
        on folder: String, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws -> [String: String] {
        try await withEmulatorExport(on: folder) { client, _ in try await body(client) }
    }
}
