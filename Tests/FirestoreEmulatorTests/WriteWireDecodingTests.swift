import EmulatorCore
import FirestoreWire
import Foundation
import NIOCore
import SwiftProtobuf
import Testing

@testable import FirestoreEmulator

/// Writes read straight from their protobuf bytes: the shapes the SDKs send are read (and give what
/// SwiftProtobuf's decoding and the conversion give), anything else is left to the general way.
@Suite struct WriteWireDecodingTests {
    static let database = "projects/demo-wire/databases/(default)"

    static func value(_ build: (inout Google_Firestore_V1_Value) -> Void) -> Google_Firestore_V1_Value {
        var value = Google_Firestore_V1_Value()
        build(&value)
        return value
    }

    /// Every kind of value, nested.
    static let everyKind: [String: Google_Firestore_V1_Value] = [
        "null": value { $0.nullValue = .nullValue },
        "yes": value { $0.booleanValue = true },
        "no": value { $0.booleanValue = false },
        "int": value { $0.integerValue = -42 },
        "big": value { $0.integerValue = .max },
        "double": value { $0.doubleValue = -0.0 },
        "nan": value { $0.doubleValue = .nan },
        "time": value { $0.timestampValue = .with { $0.seconds = 1_700_000_000; $0.nanos = 123_456_789 } },
        "text": value { $0.stringValue = "héllo 🌍" },
        "": value { $0.stringValue = "" },
        "bytes": value { $0.bytesValue = Data([0, 1, 255]) },
        "ref": value { $0.referenceValue = database + "/documents/a/b" },
        "geo": value { $0.geoPointValue = .with { $0.latitude = 48.85; $0.longitude = -2.35 } },
        "array": value {
            $0.arrayValue = .with { $0.values = [value { $0.integerValue = 1 }, value { $0.arrayValue = .init() }] }
        },
        "map": value {
            $0.mapValue = .with {
                $0.fields = ["inner": value { $0.mapValue = .with { $0.fields = ["deep": value { $0.doubleValue = 1 }] } }]
            }
        },
    ]

    static func update(_ id: String, _ fields: [String: Google_Firestore_V1_Value]) -> Google_Firestore_V1_Write {
        .with {
            $0.update.name = database + "/documents/rooms/" + id
            $0.update.fields = fields
        }
    }

    /// Commits the SDKs send: sets, merges with masks, transforms, preconditions, transactions.
    static let commits: [Google_Firestore_V1_CommitRequest] = [
        .with {
            $0.database = database
            $0.writes = [update("a", everyKind)]
        },
        .with {
            $0.database = database
            $0.transaction = Data([1, 2, 3])
            $0.writes = (0..<10).map { update("w\($0)", ["n": value { $0.integerValue = 7 }, "text": value { $0.stringValue = "x" }]) }
        },
        .with {
            $0.database = database
            var merge = update("m", ["a": value { $0.integerValue = 1 }])
            merge.updateMask = .with { $0.fieldPaths = ["a", "b.c", "`x y`"] }
            merge.updateTransforms = [
                .with { $0.fieldPath = "stamp"; $0.setToServerValue = .requestTime },
                .with { $0.fieldPath = "count"; $0.increment = value { $0.integerValue = 1 } },
                .with { $0.fieldPath = "tags"; $0.appendMissingElements = .with { $0.values = [value { $0.stringValue = "t" }] } },
            ]
            merge.currentDocument = .with { $0.exists = true }
            var timed = update("t", [:])
            timed.currentDocument = .with { $0.updateTime = .with { $0.seconds = 5; $0.nanos = 6000 } }
            $0.writes = [merge, timed]
        },
    ]

    static func bytes(_ message: some Message) throws -> ByteBuffer {
        ByteBuffer(bytes: try message.serializedBytes() as [UInt8])
    }

    @Test(arguments: commits.indices)
    func theSDKsCommitsAreReadAsSwiftProtobufReadsThem(index: Int) throws {
        let bytes = try Self.bytes(Self.commits[index])
        let read = try #require(WriteWireDecoding.commitRequest(bytes), "read straight from the bytes")
        #expect(read.writes.count == Self.commits[index].writes.count)
        #expect(WriteWireDecoding.agreesWithSwiftProtobuf(commit: bytes))
    }

    @Test func aWriteStreamRequestIsReadAsSwiftProtobufReadsIt() throws {
        let request = Google_Firestore_V1_WriteRequest.with {
            $0.database = Self.database
            $0.streamID = "s1"
            $0.streamToken = Data([9, 9])
            $0.writes = Self.commits[2].writes + [Self.update("z", Self.everyKind)]
        }
        let bytes = try Self.bytes(request)
        let read = try #require(WriteWireDecoding.writeRequest(bytes))
        #expect(read.streamID == "s1" && read.token == [9, 9] && read.hasWrites)
        #expect(WriteWireDecoding.agreesWithSwiftProtobuf(writeRequest: bytes))
    }

    /// Shapes left to SwiftProtobuf: other operations, times in a document, labels, deep nesting, and
    /// values or writes that do not convert (whose errors the general way gives).
    @Test func otherShapesAreLeftToTheGeneralWay() throws {
        var deep = Self.value { $0.integerValue = 1 }
        for _ in 0..<25 { deep = Self.value { [deep] in $0.arrayValue = .with { $0.values = [deep] } } }
        var timed = Self.update("a", [:])
        timed.update.createTime = .with { $0.seconds = 1 }
        var mismatched = Self.update("a", [:])
        mismatched.update.name = "projects/other/databases/(default)/documents/rooms/a"
        let declined: [Google_Firestore_V1_Write] = [
            .with { $0.delete = Self.database + "/documents/rooms/a" },
            .with { $0.verify = Self.database + "/documents/rooms/a" },
            .with { $0.transform.document = Self.database + "/documents/rooms/a" },
            timed, mismatched,
            Self.update("a", ["deep": deep]),
            Self.update("a", ["empty": Google_Firestore_V1_Value()]),
            Self.update("a", ["time": Self.value { $0.timestampValue = .with { $0.seconds = .max } }]),
        ]
        for write in declined {
            let bytes = try Self.bytes(Google_Firestore_V1_CommitRequest.with {
                $0.database = Self.database
                $0.writes = [write]
            })
            #expect(WriteWireDecoding.commitRequest(bytes) == nil, "\(write)")
        }
        let labelled = try Self.bytes(Google_Firestore_V1_WriteRequest.with {
            $0.database = Self.database
            $0.labels = ["a": "b"]
        })
        #expect(WriteWireDecoding.writeRequest(labelled) == nil)
        // A Value with two of its fields set (SwiftProtobuf keeps the last): left to it.
        var twice: [UInt8] = try Self.value { $0.integerValue = 1 }.serializedBytes()
        twice += try Self.value { $0.stringValue = "s" }.serializedBytes() as [UInt8]
        let entry: [UInt8] = [0x0A, 1, UInt8(ascii: "k"), 0x12, UInt8(twice.count)] + twice
        let document: [UInt8] = [0x12, UInt8(entry.count)] + entry
        let write: [UInt8] = [0x0A, UInt8(document.count)] + document
        let commit = ByteBuffer(bytes: [0x12, UInt8(write.count)] + write)
        #expect(WriteWireDecoding.commitRequest(commit) == nil)
        #expect(WriteWireDecoding.agreesWithSwiftProtobuf(commit: commit))
    }

    /// A request's options (`CommitRequest` field 4, `WriteRequest` field 6) are left to SwiftProtobuf, which
    /// refuses them malformed: the fuzzer found a `WriteRequest` whose options were skipped as an unknown
    /// field here (kept as `Fuzz/corpus/grpc-writes/regression-write-request-options.bin`).
    @Test func requestOptionsAreLeftToSwiftProtobuf() throws {
        for field in [4, 6] {
            let bytes = ByteBuffer(bytes: [UInt8(field << 3 | 2), 1, 0x00])  // a message whose tag is 0
            #expect(WriteWireDecoding.agreesWithSwiftProtobuf(commit: bytes), "field \(field)")
            #expect(WriteWireDecoding.agreesWithSwiftProtobuf(writeRequest: bytes), "field \(field)")
        }
    }

    /// A tag written in more than five bytes (a zero byte padding it) is malformed to SwiftProtobuf, so it is
    /// here too: the fuzzer found one in an unknown field (`Fuzz/corpus/grpc-writes/regression-2.bin`).
    @Test func aTagPastFiveBytesIsLeftToSwiftProtobuf() throws {
        let name = Array("projects/p/databases/d".utf8)
        let database: [UInt8] = [0x0A, UInt8(name.count)] + name
        let padded: [UInt8] = [0xF8, 0x80, 0x80, 0x80, 0x80, 0x00, 0x01]  // field 15, varint 1, in a six-byte tag
        #expect(WriteWireDecoding.commitRequest(ByteBuffer(bytes: database + padded)) == nil)
        #expect(WriteWireDecoding.agreesWithSwiftProtobuf(commit: ByteBuffer(bytes: database + padded)))
    }

    /// The fuzzer's seeds and the inputs it found are read alike too.
    @Test func theFuzzCorpusIsReadAlike() throws {
        let folder = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "../../Fuzz/corpus/grpc-writes")
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
        #expect(files.count >= 5)
        for file in files {
            let bytes = ByteBuffer(bytes: try Data(contentsOf: file))
            #expect(WriteWireDecoding.agreesWithSwiftProtobuf(commit: bytes), "\(file.lastPathComponent)")
            #expect(WriteWireDecoding.agreesWithSwiftProtobuf(writeRequest: bytes), "\(file.lastPathComponent)")
        }
    }

    /// Every request above, damaged in many seeded ways (bytes flipped, cut short, spliced): whatever
    /// this reader takes, SwiftProtobuf and the conversion read the same.
    @Test func damagedRequestsAreReadAlikeOrLeftAlone() throws {
        var generator = SplitMix64(seed: 19)
        let seeds = try Self.commits.map { try Self.bytes($0) }
        var taken = 0
        for round in 0..<3_000 {
            var bytes = Array(seeds[round % seeds.count].readableBytesView)
            switch round % 3 {
            case 0:
                for _ in 0...Int.random(in: 0..<3, using: &generator) {
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                }
            case 1:
                bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &generator)))
            default:
                let other = Array(seeds[Int.random(in: 0..<seeds.count, using: &generator)].readableBytesView)
                let cut = Int.random(in: 0..<min(bytes.count, other.count), using: &generator)
                bytes = Array(bytes.prefix(cut) + other.dropFirst(cut))
            }
            let buffer = ByteBuffer(bytes: bytes)
            if WriteWireDecoding.commitRequest(buffer) != nil { taken += 1 }
            #expect(WriteWireDecoding.agreesWithSwiftProtobuf(commit: buffer), "\(bytes)")
            #expect(WriteWireDecoding.agreesWithSwiftProtobuf(writeRequest: buffer), "\(bytes)")
        }
        #expect(taken > 100, "some damaged requests are still well formed and read here")
    }
}
