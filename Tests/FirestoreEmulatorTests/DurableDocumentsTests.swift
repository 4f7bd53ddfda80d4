import DataDirectory
import EmulatorCore
import Foundation
import HTTPTypes
import Synchronization
import Testing

@testable import FirestoreEmulator

/// Documents in a data folder (`--data-dir`): the bytes each is kept as, and an emulator started again on the
/// folder serving what the last one acknowledged.
@Suite struct DurableDocumentsTests {
    private static let fields: [String: FirestoreValue] = [
        "null": .null, "true": .boolean(true), "false": .boolean(false), "min": .integer(.min), "max": .integer(.max),
        "nan": .double(.nan), "negativeZero": .double(-0.0), "infinity": .double(-.infinity), "text": .string("ünïcödé 🔥"),
        "empty": .string(""), "bytes": .bytes([0, 1, 254, 255]), "noBytes": .bytes([]),
        "time": .timestamp(seconds: -62_135_596_800, nanos: 0), "micros": .timestamp(seconds: 1_700_000_000, nanos: 123_456_000),
        "geo": .geoPoint(latitude: -90, longitude: 180), "reference": .reference("projects/p/databases/d/documents/a/b"),
        "list": .array([.integer(1), .map(["x": .array([])]), .null, .string("s")]), "noList": .array([]),
        "map": .map(["a.b": .map(["`c`": .map(["d": .integer(1)])]), "": .boolean(false)]), "noMap": .map([:]),
    ]

    private static let document = Document(
        path: DocumentPath(segments: ["rooms", "r1"]), fields: fields,
        createTime: Timestamp(seconds: -5, nanos: 999_999_999), updateTime: Timestamp(seconds: 1_700_000_000, nanos: 1000))

    @Test func everyValueTypeRoundTrips() throws {
        let bytes = DocumentCodec.encode(Self.document)
        let decoded = try bytes.withUnsafeBytes { try DocumentCodec.decode($0, path: Self.document.path) }
        #expect(Identical(decoded.fields) == Identical(Self.fields))
        #expect(decoded.createTime == Self.document.createTime && decoded.updateTime == Self.document.updateTime)
    }

    @Test func damagedBytesAreAnErrorNeverACrash() throws {
        let bytes = DocumentCodec.encode(Self.document)
        for length in 0..<bytes.count {
            #expect(throws: DocumentCodec.Corrupt.self) {
                try Array(bytes.prefix(length)).withUnsafeBytes { try DocumentCodec.decode($0, path: Self.document.path) }
            }
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            var damaged = bytes
            damaged[Int.random(in: 0..<damaged.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            _ = try? damaged.withUnsafeBytes { try DocumentCodec.decode($0, path: Self.document.path) }
        }
        let deep = [UInt8(1), 0, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 0) + (0..<100).flatMap { _ in [UInt8(1), 0, 11] }
        #expect(throws: DocumentCodec.Corrupt.self) { try deep.withUnsafeBytes { try DocumentCodec.decode($0, path: Self.document.path) } }
    }

    private func folder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("hearth-firestore-\(UUID().uuidString)").path
    }

    /// Runs `body` against an emulator on `folder`, closing the folder afterwards as a stopped suite does.
    private func withEmulator(on folder: String, _ body: @Sendable (FirestoreTestClient.Session, FirestoreEmulator) async throws -> Void) async throws {
        let store = try DataDirectory(path: folder)
        defer { store.close() }
        let emulator = try FirestoreEmulator(projectID: FirestoreTestClient.projectID, port: 0, durable: store)
        try await FirestoreTestClient(emulator: emulator).run { try await body($0, emulator) }
    }

    @Test func aRestartServesEveryAcknowledgedWrite() async throws {
        let folder = folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let before = Mutex<[String: JSONValue]>([:])
        try await withEmulator(on: folder) { session, _ in
            try await session.set("rooms/a", ["n": int(1), "s": string("x")])
            // Ids that a text key would lose or merge: a NUL inside, a combining mark after the separator.
            try await session.set("rooms/a%00b", ["n": int(5)])
            try await session.set("rooms/%CC%81x", ["n": int(6)])
            try await session.set("rooms/gone", ["n": int(2)])
            try await session.commit([
                ["update": ["name": .string(session.name("rooms/a")), "fields": ["n": int(3)]], "updateMask": ["fieldPaths": ["n"]]],
                ["delete": .string(session.name("rooms/gone"))],
                ["update": ["name": .string(session.name("rooms/missing/messages/m1")), "fields": ["t": string("hi")]]],
            ])
            let named = "/v1/projects/\(session.projectID)/databases/other/documents"
            _ = try await session.request(.patch, named + "/things/t1", body: ["fields": ["ok": ["booleanValue": true]]])
            for path in ["rooms/a", "rooms/missing/messages/m1", "rooms/a%00b", "rooms/%CC%81x"] {
                let json = try await session.request(.get, session.root + "/" + path).json
                before.withLock { $0[path] = json }
            }
        }
        try await withEmulator(on: folder) { session, _ in
            for path in ["rooms/a", "rooms/missing/messages/m1", "rooms/a%00b", "rooms/%CC%81x"] {
                let reply = try await session.request(.get, session.root + "/" + path)
                #expect(reply.json == before.withLock { $0[path] }, "\(path)")
            }
            #expect(try await session.request(.get, session.root + "/rooms/gone").status == 404)
            let named = try await session.request(.get, "/v1/projects/\(session.projectID)/databases/other/documents/things/t1")
            #expect(named.json["fields"]?["ok"]?["booleanValue"] == true)
            // Commits after a restart are later than every kept one.
            let commit = try await session.set("rooms/b", ["n": int(4)])
            let kept = before.withLock { $0["rooms/a"]?["updateTime"]?.stringValue } ?? ""
            #expect((commit.json["commitTime"]?.stringValue ?? "") > kept)
        }
    }

    @Test func restoresAndClearsAreKept() async throws {
        let folder = folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let other = "/v1/projects/\(FirestoreTestClient.projectID)/databases/other/documents"
        try await withEmulator(on: folder) { session, emulator in
            try await session.set("rooms/a", ["n": int(1)])
            let checkpoint = await emulator.checkpoint()
            try await session.set("rooms/b", ["n": int(2)])
            try await session.set("rooms/a", ["n": int(9)])
            try await emulator.restore(checkpoint)
            _ = try await session.request(.patch, other + "/things/t1", body: ["fields": ["n": int(1)]])
            let cleared = try await session.request(.delete, "/emulator/v1/projects/\(session.projectID)/databases/other/documents")
            #expect(cleared.status == 200)
        }
        try await withEmulator(on: folder) { session, _ in
            let (_, names) = try await session.query(["from": [["collectionId": "rooms"]]])
            #expect(names == ["rooms/a"])
            #expect(try await session.request(.get, session.root + "/rooms/a").json["fields"]?["n"] == int(1))
            #expect(try await session.request(.get, other + "/things/t1").status == 404)
        }
    }

    @Test func rulesLoadedThroughTheAPIAreKept() async throws {
        let folder = folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await withEmulator(on: folder) { session, _ in
            try await session.loadRules("rules_version = '2'; service cloud.firestore { match /{path=**} { allow read: if false; } }")
            #expect(try await session.request(.get, session.root + "/rooms/a", as: .anonymous).status == 403)
        }
        try await withEmulator(on: folder) { session, _ in
            let read = try await session.request(.get, session.root + "/rooms/a", as: .anonymous)
            #expect(read.status == 403)
        }
    }
}
