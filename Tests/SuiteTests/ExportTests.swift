import EmulatorCore
import Foundation
import Testing

@testable import Suite

/// The suite's export and import: where an export may go, that a failed or abandoned one leaves the previous
/// export as it was, what an import folder is taken for, and a whole suite's round trip.
@Suite struct ExportTests {
    /// A scratch folder, removed afterwards.
    private final class Scratch {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-suite-\(UUID().uuidString)")
        init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: url) }
        func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    }

    /// An emulator whose export writes a marker file, or fails, or waits to be cancelled.
    private struct Exporter: DataExporting {
        enum Behaviour: Sendable { case writes(String), fails, waits }
        let behaviour: Behaviour

        func exportData(to folder: URL, progress: TransferProgress) async throws {
            switch behaviour {
            case .writes(let text):
                try Data(text.utf8).write(to: folder.appendingPathComponent("data.txt"))
                progress.add(items: 1, bytes: text.utf8.count)
            case .fails:
                try Data("half".utf8).write(to: folder.appendingPathComponent("data.txt"))
                throw CocoaError(.fileWriteOutOfSpace)
            case .waits:
                try await Task.sleep(for: .seconds(60))
            }
        }

        func importData(from folder: URL, progress: TransferProgress) async throws {}
    }

    private func export(to path: String, _ behaviour: Exporter.Behaviour) throws -> Suite.Export {
        Suite.Export(
            target: try ExportTarget(path: path), parts: [(.database, "database_export", Exporter(behaviour: behaviour))],
            transfer: DataTransfer(direction: .export, path: path, emulators: [.database]))
    }

    private func marker(in folder: String) throws -> String {
        try String(contentsOfFile: folder + "/database_export/data.txt", encoding: .utf8)
    }

    private func entries(of folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    @Test func theWorkingDirectoryItsParentsAFileAndAForeignFolderAreRefused() throws {
        let scratch = try Scratch()
        let project = scratch.path("project")
        try FileManager.default.createDirectory(atPath: project + "/src", withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: project + "/src/main.swift"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: project + "/notes.txt"))
        for path in [".", "..", "../..", project, project + "/", "/"] {
            #expect(throws: ExportError.self, "\(path)") { try ExportTarget(path: path, workingDirectory: project) }
        }
        #expect {
            try ExportTarget(path: "src", workingDirectory: project)
        } throws: { "\($0)".contains("not an emulator export") }
        #expect {
            try ExportTarget(path: "notes.txt", workingDirectory: project)
        } throws: { "\($0)".contains("is a file") }
        #expect(try ExportTarget(path: "data", workingDirectory: project).url.path == project + "/data")
        #expect(try ExportTarget(path: "../project-data", workingDirectory: project).url.path == scratch.path("project-data"))
    }

    @Test func anExportReplacesThePreviousOneWhole() async throws {
        let scratch = try Scratch()
        let target = scratch.path("seed")
        try await export(to: target, .writes("first")).run()
        #expect(try marker(in: target) == "first")
        try Data("stale".utf8).write(to: URL(fileURLWithPath: target + "/stale.txt"))
        let second = try export(to: target, .writes("second"))
        try await second.run()
        #expect(try marker(in: target) == "second")
        #expect(!FileManager.default.fileExists(atPath: target + "/stale.txt"))
        #expect(try entries(of: scratch.url) == ["seed"])
        let metadata = try String(contentsOfFile: target + "/firebase-export-metadata.json", encoding: .utf8)
        #expect(metadata == "{\n  \"version\": \"\(Suite.version)\",\n  \"database\": {\n    \"version\": \"\(Suite.version)\",\n    \"path\": \"database_export\"\n  }\n}")
        #expect(second.transfer.summary.hasPrefix("Exported to \(target) in "))
        #expect(second.transfer.summary.hasSuffix(": database 1 namespaces (6 B)."))
    }

    @Test func aFailedExportLeavesThePreviousOneAndNoStaging() async throws {
        let scratch = try Scratch()
        let target = scratch.path("seed")
        try await export(to: target, .writes("good")).run()
        await #expect(throws: ExportError.self) { try await export(to: target, .fails).run() }
        #expect(try marker(in: target) == "good")
        #expect(try entries(of: scratch.url) == ["seed"])
    }

    @Test func anAbandonedExportLeavesThePreviousOneAndNoStaging() async throws {
        let scratch = try Scratch()
        let target = scratch.path("seed")
        try await export(to: target, .writes("good")).run()
        let running = Task { try await export(to: target, .waits).run() }
        try await Task.sleep(for: .milliseconds(100))
        running.cancel()
        await #expect(throws: CancellationError.self) { try await running.value }
        #expect(try marker(in: target) == "good")
        #expect(try entries(of: scratch.url) == ["seed"])
    }

    @Test func anImportFolderIsAnExportARawFirestoreExportOrDatabaseFiles() async throws {
        let scratch = try Scratch()
        var config = SuiteConfig(projectID: "demo-import")
        try config.apply(only: nil, project: nil, host: nil, ports: [])
        let suite = try Suite(config: config, locatorFile: false)
        #expect {
            _ = try suite.importData(from: scratch.path("missing"))
        } throws: { "\($0)" == "Import path '\(scratch.path("missing"))' does not exist." }
        let empty = scratch.path("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        #expect {
            _ = try suite.importData(from: empty)
        } throws: { "\($0)".contains("holds no export") }

        let rtdb = scratch.path("rtdb")
        try FileManager.default.createDirectory(atPath: rtdb, withIntermediateDirectories: true)
        try Data(#"{"a":{".value":1,".priority":2}}"#.utf8).write(to: URL(fileURLWithPath: rtdb + "/demo-import-default-rtdb.json"))
        let databaseImport = try suite.importData(from: rtdb)
        #expect(databaseImport.parts.map(\.name) == [.database])
        try await databaseImport.run()
        #expect(databaseImport.transfer.summary.hasSuffix(": database 1 namespaces (32 B)."))

        let raw = scratch.path("raw")
        try FileManager.default.createDirectory(atPath: raw, withIntermediateDirectories: true)
        try Data().write(to: URL(fileURLWithPath: raw + "/2024-01-01.overall_export_metadata"))
        #expect(try suite.importData(from: raw).parts.map(\.name) == [.firestore])

        let broken = scratch.path("broken")
        try FileManager.default.createDirectory(atPath: broken, withIntermediateDirectories: true)
        try Data(#"{"version":"1","auth":{"version":"1","path":"auth_export"}}"#.utf8)
            .write(to: URL(fileURLWithPath: broken + "/firebase-export-metadata.json"))
        #expect {
            _ = try suite.importData(from: broken)
        } throws: { "\($0)".contains("names auth data in 'auth_export', which is not a folder there") }
    }

    @Test func aWholeSuiteRoundTripsThroughAnExport() async throws {
        let scratch = try Scratch()
        var config = SuiteConfig(projectID: "demo-round-trip")
        try config.apply(only: nil, project: nil, host: nil, ports: ["auth=0", "firestore=0", "database=0", "storage=0", "hub=0"])
        let first = try Suite(config: config, locatorFile: false)
        let rtdb = scratch.path("rtdb")
        try FileManager.default.createDirectory(atPath: rtdb, withIntermediateDirectories: true)
        try Data(#"{"presence":{"alice":{"online":true,".priority":1}}}"#.utf8)
            .write(to: URL(fileURLWithPath: rtdb + "/demo-round-trip-default-rtdb.json"))
        try await first.importData(from: rtdb).run()
        let target = scratch.path("seed")
        let export = try first.export(to: target)
        try await export.run()
        let folders = try entries(of: URL(fileURLWithPath: target))
        #expect(folders == ["auth_export", "database_export", "firebase-export-metadata.json", "firestore_export", "storage_export"])

        let second = try Suite(config: config, locatorFile: false)
        let reimport = try second.importData(from: target)
        #expect(reimport.parts.map(\.name) == [.auth, .firestore, .database, .storage])
        try await reimport.run()
        let again = scratch.path("again")
        try await second.export(to: again).run()
        let exported = try String(contentsOfFile: again + "/database_export/demo-round-trip-default-rtdb.json", encoding: .utf8)
        #expect(exported == #"{"presence":{"alice":{".priority":1,"online":true}}}"#)
    }
}
