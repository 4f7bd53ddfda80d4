import EmulatorCore
import Foundation
import Testing

@testable import FirestoreEmulator

/// The managed-export format: LevelDB log framing, entity records, and the exports Google's Firestore emulator
/// wrote (`Exports/`, see its README) read back document for document.
@Suite struct ExportFormatTests {
    // MARK: LevelDB log

    private func temporaryFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("hearth-log-\(UUID().uuidString)")
    }

    private func write(_ records: [[UInt8]]) throws -> URL {
        let url = temporaryFile()
        var writer = try LevelDBLogWriter(creating: url)
        for record in records { try writer.append(record) }
        try writer.finish()
        return url
    }

    private func readAll(_ url: URL) throws -> [[UInt8]] {
        var reader = try LevelDBLogReader(contentsOf: url)
        var records: [[UInt8]] = []
        while let record = try reader.next() { records.append(record) }
        return records
    }

    @Test func recordsOfEverySizeRoundTripAcrossBlocks() throws {
        // Empty, tiny, one that fills a block's tail to under a header, one exactly filling a block, several blocks.
        let sizes = [0, 1, LevelDBLog.blockSize - 2 * LevelDBLog.headerSize - 1 - 3, LevelDBLog.blockSize - LevelDBLog.headerSize, 100_000, 0, 5]
        let records = sizes.enumerated().map { index, size in (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) } }
        let url = try write(records)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(try readAll(url) == records)
    }

    @Test func aBlockTailShorterThanAHeaderIsZeroFilled() throws {
        let first = [UInt8](repeating: 7, count: LevelDBLog.blockSize - LevelDBLog.headerSize - 3)
        let url = try write([first, [1, 2, 3]])
        defer { try? FileManager.default.removeItem(at: url) }
        let data = try Data(contentsOf: url)
        #expect(data[(LevelDBLog.blockSize - 3)..<LevelDBLog.blockSize] == Data([0, 0, 0]))
        #expect(data.count == LevelDBLog.blockSize + LevelDBLog.headerSize + 3)
        #expect(try readAll(url) == [first, [1, 2, 3]])
    }

    @Test func aFlippedByteIsAChecksumErrorAtItsRecord() throws {
        let url = try write([[1, 2, 3], Array(repeating: 9, count: 50)])
        defer { try? FileManager.default.removeItem(at: url) }
        var data = try Data(contentsOf: url)
        data[LevelDBLog.headerSize + 3 + LevelDBLog.headerSize + 10] ^= 0xFF
        var reader = LevelDBLogReader(data: data)
        #expect(try reader.next() == [1, 2, 3])
        #expect {
            _ = try reader.next()
        } throws: { error in
            (error as? LevelDBLogReader.Corruption)?.offset == LevelDBLog.headerSize + 3
                && "\(error)".contains("checksum mismatch")
        }
    }

    @Test func aTruncatedFileIsAnError() throws {
        let url = try write([Array(repeating: 1, count: 100_000)])
        defer { try? FileManager.default.removeItem(at: url) }
        let data = try Data(contentsOf: url).prefix(50_000)
        var reader = LevelDBLogReader(data: Data(data))
        #expect(throws: LevelDBLogReader.Corruption.self) { _ = try reader.next() }
    }

    // MARK: Exports the official emulator wrote

    private static let exports = Bundle.module.resourceURL!.appendingPathComponent("Exports")

    /// The documents the official emulator served for an export case, by `database/path`.
    private static func documents(of name: String) throws -> [String: [String: FirestoreValue]] {
        let json = try JSONValue.parse(Data(contentsOf: exports.appendingPathComponent("\(name).documents.json")))
        var result: [String: [String: FirestoreValue]] = [:]
        for document in json["documents"]?.arrayValue ?? [] {
            let name = try #require(document["name"]?.stringValue)
            let parts = name.split(separator: "/", maxSplits: 5).map(String.init)
            var fields: [String: FirestoreValue] = [:]
            for (key, value) in document["fields"]?.objectValue ?? [:] { fields[key] = try FirestoreValue(json: value) }
            result["\(parts[3])/\(parts[5])"] = fields
        }
        return result
    }

    private static func read(_ name: String, project: String = "demo-hearth") throws -> [String: [String: FirestoreValue]] {
        let folder = exports.appendingPathComponent(name).appendingPathComponent("firestore_export")
        let databases = try FirestoreExport.read(from: folder, project: project, progress: TransferProgress())
        var result: [String: [String: FirestoreValue]] = [:]
        for (database, documents) in databases {
            for document in documents { result["\(database.database)/\(document.path)"] = document.fields }
        }
        return result
    }

    @Test(arguments: ["all-types", "named-db", "empty"])
    func anOfficialExportReadsAsTheDocumentsItServed(name: String) throws {
        let read = try Self.read(name)
        let served = try Self.documents(of: name)
        #expect(read.keys.sorted() == served.keys.sorted())
        for (path, fields) in served {
            #expect(Identical(read[path] ?? [:]) == Identical(fields), "\(path)")
        }
    }

    @Test func aShardedOfficialExportReadsEveryOutputFile() throws {
        // 10,001 documents many/dNNNNN {i: N} and three of 100,000 characters, big/bK {s: "A…", "B…", "C…"}.
        let read = try Self.read("sharded")
        #expect(read.count == 10_004)
        for index in 0..<10_001 {
            #expect(read["(default)/many/d" + String(format: "%05d", index)] == ["i": .integer(Int64(index))])
        }
        for index in 0..<3 {
            let text = String(repeating: Character(UnicodeScalar(65 + index)!), count: 100_000)
            #expect(read["(default)/big/b\(index)"] == ["s": .string(text)])
        }
    }

    @Test func anExportWrittenHereReadsBackIdentically() throws {
        let databases = try FirestoreExport.read(
            from: Self.exports.appendingPathComponent("all-types/firestore_export"), project: "demo-hearth",
            progress: TransferProgress())
        let store = try FirestoreStore(clock: SystemClock())
        try store.replace(databases)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let progress = TransferProgress()
        let count = try FirestoreExport.write(store.snapshot(project: "demo-hearth"), to: folder, name: "firestore_export", progress: progress)
        #expect(count == databases.values.reduce(0) { $0 + $1.count })
        #expect(progress.totals.items == count)
        let again = try FirestoreExport.read(from: folder, project: "demo-hearth", progress: TransferProgress())
        for (database, documents) in databases {
            let written = Dictionary(uniqueKeysWithValues: (again[database] ?? []).map { ($0.path, Identical($0.fields)) })
            for document in documents { #expect(written[document.path] == Identical(document.fields), "\(document.path)") }
        }
    }

    @Test func anEmptyExportIsByteForByteTheOfficialOne() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FirestoreExport.write([], to: folder, name: "firestore_export", progress: TransferProgress())
        let ours = try Data(contentsOf: folder.appendingPathComponent("firestore_export.overall_export_metadata"))
        let official = try Data(
            contentsOf: Self.exports.appendingPathComponent("empty/firestore_export/firestore_export.overall_export_metadata"))
        #expect(ours == official)
    }

    @Test func theRecordsAnImportCannotReadAreNamed() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-export-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: Self.exports.appendingPathComponent("all-types/firestore_export"), to: folder)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("all_namespaces/all_kinds/output-0")
        // A record whose bytes are not an entity, with a valid checksum: the log reads, the record does not.
        let records = try {
            var reader = try LevelDBLogReader(contentsOf: output)
            var records: [[UInt8]] = []
            while let record = try reader.next() { records.append(record) }
            return records
        }()
        var writer = try LevelDBLogWriter(creating: output)
        for (index, record) in records.enumerated() { try writer.append(index == 3 ? [0xFF, 0xFF, 0xFF] : record) }
        try writer.finish()
        #expect {
            _ = try FirestoreExport.read(from: folder, project: "p", progress: TransferProgress())
        } throws: { error in
            let error = error as? ImportError
            return error?.file == output.path && error?.message.hasPrefix("record 3 at byte ") == true
        }
        try FileManager.default.removeItem(at: output)
        #expect(throws: ImportError.self) { _ = try FirestoreExport.read(from: folder, project: "p", progress: TransferProgress()) }
    }

    // MARK: Entity records

    @Test func everyValueTypeRoundTripsThroughARecord() throws {
        let database = DatabaseName(project: "demo", database: "named")
        let fields: [String: FirestoreValue] = [
            "null": .null, "true": .boolean(true), "min": .integer(.min), "max": .integer(.max), "nan": .double(.nan),
            "negativeZero": .double(-0.0), "infinity": .double(-.infinity), "text": .string("ünïcödé 🔥"), "empty": .string(""),
            "bytes": .bytes([0, 1, 254, 255]), "noBytes": .bytes([]),
            "time": .timestamp(seconds: -62_135_596_800, nanos: 0), "micros": .timestamp(seconds: 1_700_000_000, nanos: 123_456_000),
            "geo": .geoPoint(latitude: -90, longitude: 180), "reference": .reference("projects/demo/databases/named/documents/a/__id7__/b/c"),
            "list": .array([.integer(1), .map(["x": .array([])]), .null, .string("s")]), "noList": .array([]),
            "map": .map(["a.b": .map(["`c`": .map(["d": .integer(1)])]), " ": .boolean(false)]), "noMap": .map([:]),
            "vector": .map(["__type__": .string("__vector__"), "value": .array([.double(1), .double(2.5)])]),
        ]
        let document = Document(
            path: DocumentPath(segments: ["rooms", "r1", "messages", "__id-42__"]), fields: fields,
            createTime: Timestamp(seconds: 1, nanos: 0), updateTime: Timestamp(seconds: 1, nanos: 0))
        let record = try EntityCodec.encode(document, in: database)
        let (decodedDatabase, path, decoded) = try EntityCodec.decode(record, project: "demo")
        #expect(decodedDatabase == database)
        #expect(path == document.path)
        #expect(Identical(decoded) == Identical(fields))
    }
}
