import EmulatorCore
import Foundation
import NIOCore
import Testing

@testable import FirestoreEmulator

/// REST commit bodies read straight from their bytes (`RESTWriteReading`): the shapes it takes give the
/// writes the general way gives, and everything else is left to the general way.
@Suite struct RESTWriteReadingTests {
    static let database = DatabaseName(project: "p", database: DatabaseName.defaultDatabase)
    static let root = "projects/p/databases/(default)/documents"

    func read(_ text: String) -> [Write]? {
        RESTWriteReading.commit(ByteBuffer(string: text), database: Self.database)?.writes
    }

    func agrees(_ text: String) -> Bool {
        RESTWriteReading.agreesWithTreePath(commit: ByteBuffer(string: text), database: Self.database)
    }

    static func commit(_ writes: String...) -> String { #"{"writes":["# + writes.joined(separator: ",") + "]}" }
    static func update(_ id: String, _ fields: String, extra: String = "") -> String {
        #"{"update":{"name":"\#(root)/rooms/\#(id)","fields":\#(fields)}\#(extra)}"#
    }

    static let taken = [
        commit(update("a", #"{"n":{"integerValue":"1"},"text":{"stringValue":"a small document"}}"#)),
        commit(
            update("a", #"{"a":{"mapValue":{"fields":{"b":{"arrayValue":{"values":[{"nullValue":null},{"booleanValue":false},{"doubleValue":-2.5e-3},{"doubleValue":3},{"integerValue":"-9223372036854775808"},{"timestampValue":"2024-05-01T10:00:00.123456789Z"},{"referenceValue":"\#(root)/x/y"}]}}}}}}"#),
            update("b", #"{"e":{"mapValue":{}},"f":{"arrayValue":{}},"s":{"stringValue":"q\"\\\u00e9\n😀"}}"#,
                   extra: #","updateMask":{"fieldPaths":["a.b","`c-d`"]},"currentDocument":{"exists":true}"#)),
        commit(),
        " { \"writes\" : [ { \"currentDocument\" : { \"exists\" : false } , \"update\" : { \"fields\" : { } , \"name\" : \"\(root)/rooms/b\" } } ] } \n",
        commit(#"{"update":{"name":"\#(root)/rooms/c/m/d"}}"#),  // no fields: an empty document
        // The web SDK's transaction commit: a mask, server timestamps and the other transforms, an exists
        // precondition, the transaction.
        #"{"writes":["# + update("a", #"{"n":{"integerValue":"1"}}"#, extra: #","updateMask":{"fieldPaths":["n","t"]},"updateTransforms":[{"fieldPath":"t","setToServerValue":"REQUEST_TIME"},{"fieldPath":"c","increment":{"integerValue":"2"}},{"fieldPath":"hi","maximum":{"doubleValue":2.5}},{"fieldPath":"lo","minimum":{"integerValue":"-1"}},{"fieldPath":"l","appendMissingElements":{"values":[{"stringValue":"x"}]}},{"fieldPath":"r","removeAllFromArray":{}}],"currentDocument":{"exists":true}"#) + #"],"transaction":"dHg="}"#,
        commit(update("a", #"{}"#, extra: #","updateTransforms":[]"#)),
    ]

    @Test(arguments: taken)
    func theShapesClientsSendAreReadAsTheGeneralWayReadsThem(body: String) {
        #expect(read(body) != nil, "taken")
        #expect(agrees(body))
    }

    @Test func aCommitIsReadIntoItsWrites() throws {
        let writes = try #require(read(Self.taken[1]))
        #expect(writes.count == 2)
        #expect(writes[1].path == DocumentPath(segments: ["rooms", "b"]))
        #expect(writes[1].precondition == .exists(true))
        #expect(writes[1].updateMask?.map(\.description) == ["a.b", "`c-d`"])
        guard case .update(let fields) = writes[1].operation else {
            Issue.record("not an update")
            return
        }
        #expect(fields["s"] == .string("q\"\\\u{e9}\n😀"))
    }

    @Test func aTransactionCommitIsReadWithItsTransformsAndTransaction() throws {
        let read = try #require(RESTWriteReading.commit(ByteBuffer(string: Self.taken[5]), database: Self.database))
        #expect(read.transaction == Array("tx".utf8))
        #expect(read.writes.first?.transforms.map(\.field.description) == ["t", "c", "hi", "lo", "l", "r"])
    }

    @Test(arguments: [
        commit(update("a", #"{"n":{"integerValue":1}}"#)),  // an integer as a number
        commit(update("a", #"{"n":{"doubleValue":"NaN"}}"#)),
        commit(update("a", #"{"n":{"bytesValue":"AAE="}}"#)),
        commit(update("a", #"{"n":{"geoPointValue":{"latitude":1}}}"#)),
        commit(update("a", #"{"n":{"integerValue":"1","stringValue":"x"}}"#)),  // two kinds
        commit(update("a", #"{"n":{}}"#)),
        commit(update("a", #"{"n":{"stringValue":"x"},"n":{"stringValue":"y"}}"#)),  // a field twice
        commit(update("a", #"{"n":{"nullValue":"NULL_VALUE"}}"#)),
        commit(update("a", #"{"n":{"timestampValue":"yesterday"}}"#)),
        commit(update("a", #"{"n":{"stringValue":null}}"#)),
        commit(update("a", #"{}"#, extra: #","updateTransforms":[{"fieldPath":"t","setToServerValue":1}]"#)),
        commit(update("a", #"{}"#, extra: #","updateTransforms":[{"fieldPath":"t"}]"#)),
        commit(update("a", #"{}"#, extra: #","updateTransforms":[{"setToServerValue":"REQUEST_TIME"}]"#)),
        commit(update("a", #"{}"#, extra: #","updateTransforms":[{"fieldPath":"a..b","setToServerValue":"REQUEST_TIME"}]"#)),
        commit(update("a", #"{}"#, extra: #","updateTransforms":[{"fieldPath":"t","increment":{"integerValue":"1"},"maximum":{"integerValue":"1"}}]"#)),
        commit(update("a", #"{}"#, extra: #","updateTransforms":[{"fieldPath":"l","appendMissingElements":{"values":null}}]"#)),
        commit(update("a", #"{}"#, extra: #","transform":{"document":"\#(root)/rooms/a"}"#)),
        commit(update("a", #"{}"#, extra: #","currentDocument":{"updateTime":"2024-05-01T10:00:00Z"}"#)),
        commit(update("a", #"{}"#, extra: #","currentDocument":null"#)),
        commit(update("a", #"{}"#, extra: #","updateMask":{"fieldPaths":["a..b"]}"#)),
        commit(#"{"delete":"\#(root)/rooms/a"}"#),
        commit(#"{"update":{"name":"projects/other/databases/(default)/documents/rooms/a"}}"#),
        commit(#"{"update":{"name":"\#(root)/rooms"}}"#),  // a collection
        commit(#"{"update":{"fields":{}}}"#),  // no name
        #"{"writes":[],"transaction":"not base 64!"}"#,
        #"{"writes":[],"transaction":null}"#,
        #"{"writes":[],"transaction":""}"#,
        #"{"database":"projects/p/databases/(default)","writes":[]}"#,
        #"{}"#,
        #"{"writes":[]} x"#,
        #"{"writes":[}"#,
        "",
        commit(update("a", String(repeating: #"{"m":{"mapValue":{"fields":"#, count: 22) + "{}" + String(repeating: "}}}", count: 22))),
    ])
    func everyOtherShapeIsLeftToTheGeneralWay(body: String) {
        #expect(read(body) == nil)
        #expect(agrees(body))
    }

    @Test func moreWritesThanACommitTakesAreLeftToTheGeneralWay() {
        let writes = Array(repeating: Self.update("a", "{}"), count: 501)
        #expect(read(#"{"writes":["# + writes.joined(separator: ",") + "]}") == nil)
    }

    /// The fuzzer's seeds are read alike too.
    @Test func theFuzzCorpusIsReadAlike() throws {
        let folder = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "../../Fuzz/corpus/rest-writes")
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
        #expect(files.count >= 4)
        for file in files {
            #expect(
                RESTWriteReading.agreesWithTreePath(commit: ByteBuffer(bytes: try Data(contentsOf: file)), database: Self.database),
                "\(file.lastPathComponent)")
        }
    }

    /// The taken bodies damaged in many seeded ways (bytes changed, cut short, spliced): whatever this
    /// reader takes, the general way reads the same.
    @Test func damagedBodiesAreReadAlikeOrLeftAlone() {
        var generator = SplitMix64(seed: 16)
        let seeds = Self.taken.map { Array($0.utf8) }
        var taken = 0
        let alphabet = Array(#"{}[]:,"\ 0123456789.-eE+abnultrsfxyzVv"#.utf8)
        for _ in 0..<3_000 {
            var bytes = seeds.randomElement(using: &generator)!
            for _ in 0..<Int.random(in: 1...3, using: &generator) where !bytes.isEmpty {
                let at = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: bytes[at] = alphabet.randomElement(using: &generator)!
                case 1: bytes.remove(at: at)
                case 2: bytes.insert(alphabet.randomElement(using: &generator)!, at: at)
                default: bytes = Array(bytes[..<at]) + Array(seeds.randomElement(using: &generator)!.suffix(bytes.count - at))
                }
            }
            let buffer = ByteBuffer(bytes: bytes)
            if RESTWriteReading.commit(buffer, database: Self.database) != nil { taken += 1 }
            #expect(RESTWriteReading.agreesWithTreePath(commit: buffer, database: Self.database), "\(String(decoding: bytes, as: UTF8.self))")
        }
        #expect(taken > 100, "some damaged bodies are still plain ones")
    }
}

/// UpdateDocument bodies read straight from their bytes: `{"fields": ...}` and nothing else.
@Suite struct RESTDocumentReadingTests {
    func read(_ text: String) -> [String: FirestoreValue]? { RESTWriteReading.documentFields(ByteBuffer(string: text)) }
    func agrees(_ text: String) -> Bool { RESTWriteReading.agreesWithTreePath(document: ByteBuffer(string: text)) }

    @Test(arguments: [
        #"{"fields":{"n":{"integerValue":"1"},"text":{"stringValue":"a small document"}}}"#,
        #" {"fields" : {} } "#,
        #"{"fields":{"m":{"mapValue":{"fields":{"a":{"arrayValue":{"values":[{"doubleValue":1.5}]}}}}}}}"#,
    ])
    func aFieldsOnlyBodyIsReadAsTheGeneralWayReadsIt(body: String) {
        #expect(read(body) != nil)
        #expect(agrees(body))
    }

    @Test(arguments: [
        #"{"name":"projects/p/databases/(default)/documents/rooms/a","fields":{}}"#,  // the name is checked
        #"{"fields":{},"fields":{}}"#,
        #"{"fields":null}"#,
        #"{}"#,
        #"{"fields":{"n":{"integerValue":1}}}"#,
        #"{"fields":{"n":{"integerValue":"1"}}} ]"#,
    ])
    func anyOtherBodyIsLeftToTheGeneralWay(body: String) {
        #expect(read(body) == nil)
        #expect(agrees(body))
    }

    @Test func damagedBodiesAreReadAlikeOrLeftAlone() {
        var generator = SplitMix64(seed: 29)
        let seed = Array(#"{"fields":{"n":{"integerValue":"12"},"m":{"mapValue":{"fields":{"s":{"stringValue":"x\u00e9"}}}},"a":{"arrayValue":{"values":[{"booleanValue":true},{"doubleValue":-1.5e2}]}}}}"#.utf8)
        let alphabet = Array(#"{}[]:,"\ 0123456789.-eE+abnultrsfxyzVv"#.utf8)
        var taken = 0
        for _ in 0..<2_000 {
            var bytes = seed
            for _ in 0..<Int.random(in: 1...2, using: &generator) where !bytes.isEmpty {
                let at = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes[at] = alphabet.randomElement(using: &generator)!
                case 1: bytes.remove(at: at)
                default: bytes.insert(alphabet.randomElement(using: &generator)!, at: at)
                }
            }
            if RESTWriteReading.documentFields(ByteBuffer(bytes: bytes)) != nil { taken += 1 }
            #expect(RESTWriteReading.agreesWithTreePath(document: ByteBuffer(bytes: bytes)), "\(String(decoding: bytes, as: UTF8.self))")
        }
        #expect(taken > 50, "some damaged bodies are still plain ones")
    }
}
