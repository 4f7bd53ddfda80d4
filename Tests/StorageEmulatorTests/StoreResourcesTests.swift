import EmulatorCore
import Foundation
import Testing

@testable import StorageEmulator

/// What the store holds on to outside memory: descriptors of uploads in progress, blob directories of
/// processes that died, and the folders exports write.
@Suite struct StoreResourcesTests {
    @Test func aParkedWriterHoldsNoDescriptorAndAppendsWhenWrittenAgain() async throws {
        let store = try ObjectStore()
        let writers = try (0..<50).map { _ in try store.newBlob() }
        for writer in writers {
            try writer.write(Array("ab".utf8))
            writer.park()
        }
        #expect(writers.allSatisfy { !$0.holdsDescriptor }, "parked uploads hold no descriptor")
        for writer in writers { try writer.write(Array("c".utf8)) }
        for writer in writers {
            let blob = try await writer.finish()
            #expect(blob.size == 3)
            #expect(try contents(of: blob, in: store) == Array("abc".utf8))
        }
    }

    @Test func uploadSessionsParkTheirWritersBetweenRequests() async throws {
        let store = try ObjectStore()
        let sessions = UploadSessions()
        var writers: [BlobWriter] = []
        for index in 0..<50 {
            let upload = ResumableUpload(
                id: "u\(index)", bucket: "b", name: "o\(index)", metadata: [:], contentType: nil, credential: .none,
                declaredSize: nil)
            let writer = try store.newBlob()
            sessions.start(upload, writer: writer)
            #expect(!writer.holdsDescriptor, "a started upload waits for its first chunk without a descriptor")
            _ = try await sessions.withSession("u\(index)") { session in
                try session.writer?.write(Array("x".utf8))
                #expect(session.writer?.holdsDescriptor == true, "open while the request writes")
            }
            writers.append(writer)
        }
        #expect(writers.allSatisfy { !$0.holdsDescriptor && $0.size == 1 }, "between chunks no upload holds a descriptor")
        sessions.reset()
    }

    @Test func blobDirectoriesOfDeadProcessesAreRemoved() throws {
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-store-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: temporary) }
        // A pid far above Linux's pid_max never runs; this process's own pid does.
        let dead = temporary.appendingPathComponent("\(ObjectStore.directoryPrefix)99999999-\(UUID().uuidString)")
        let alive = temporary.appendingPathComponent("\(ObjectStore.directoryPrefix)\(getpid())-\(UUID().uuidString)")
        let unrelated = temporary.appendingPathComponent("hearth-storage-notes")
        for directory in [dead, alive, unrelated] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        ObjectStore.removeAbandonedDirectories(in: temporary)
        #expect(!FileManager.default.fileExists(atPath: dead.path))
        #expect(FileManager.default.fileExists(atPath: alive.path))
        #expect(FileManager.default.fileExists(atPath: unrelated.path))
    }

    @Test func exportsWriteOnlyNewOrEmptyFolders() throws {
        let store = try ObjectStore()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-export-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let full = root.appendingPathComponent("full")
        try FileManager.default.createDirectory(at: full, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: full.appendingPathComponent("thesis.txt"))
        #expect(throws: StorageExport.Refusal.self) { try StorageExport(store: store).write(to: full) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: full.path) == ["thesis.txt"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == ["full"], "no staging folder left")

        let empty = root.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        try StorageExport(store: store).write(to: empty)
        #expect(FileManager.default.fileExists(atPath: empty.appendingPathComponent("buckets.json").path))
        let new = root.appendingPathComponent("new")
        try StorageExport(store: store).write(to: new)
        #expect(FileManager.default.fileExists(atPath: new.appendingPathComponent("buckets.json").path))
    }
}
