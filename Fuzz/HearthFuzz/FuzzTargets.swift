import DatabaseRules
import EmulatorCore
import Foundation
import NIOCore
import SecurityRules

@testable import DatabaseEmulator
@testable import FirestoreEmulator
@testable import StorageEmulator

/// The parsers that read what clients send, each a function of arbitrary bytes that must return (never
/// crash, hang or grow without bound). libFuzzer drives one of them per run (`HEARTH_FUZZ_TARGET`); the
/// plain build replays files through them (`HearthFuzz <target> <file>...`).
enum FuzzTarget: String, CaseIterable {
    /// `firestore.rules` / `storage.rules`: lexer, parser and checker.
    case rules
    /// The JSON parser every REST API and the RTDB wire protocol use.
    case json
    /// `database.rules.json` and its expression language.
    case databaseRules = "database-rules"
    /// The RTDB wire protocol: frame reassembly, then each message handled by a connection.
    case databaseWire = "database-wire"
    /// Storage's `multipart/related` upload bodies.
    case multipart
    /// WebChannel forward-channel bodies (the web SDK's Firestore requests).
    case webchannel
    /// A Firestore export's `output-N` file (`--import`): LevelDB log framing, then each record as an entity;
    /// the whole input is also read as one entity record.
    case firestoreExport = "firestore-export"
    /// gRPC `CommitRequest` and `WriteRequest` bytes read straight into writes (`WriteWireDecoding`): what it
    /// takes must read the same through SwiftProtobuf and the conversion, or the run stops.
    case grpcWrites = "grpc-writes"
    /// REST commit and document bodies read straight into writes and fields (`RESTWriteReading`): what it
    /// takes must read the same through `JSONValue.parse` and the conversion, or the run stops.
    case restWrites = "rest-writes"

    /// Runs the target once on `bytes`.
    func run(_ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        switch self {
        case .rules:
            _ = RulesCompiler.compile(RulesSource(fileName: "fuzz.rules", text: text))
        case .json:
            if let value = try? JSONValue.parse(Data(bytes)) { _ = value.serialized() }
        case .databaseRules:
            _ = try? DatabaseRuleSet(source: text)
        case .databaseWire:
            Self.databaseWire(text)
        case .multipart:
            Self.multipart(Array(bytes))
        case .webchannel:
            let body = WebChannelWire.ForwardBody(parsing: text)
            for map in body.maps { _ = try? JSONValue.parse(map) }
        case .firestoreExport:
            var reader = LevelDBLogReader(data: Data(bytes))
            while let record = try? reader.next() { _ = try? EntityCodec.decode(record, project: "fuzz") }
            _ = try? EntityCodec.decode(Array(bytes), project: "fuzz")
        case .grpcWrites:
            let buffer = ByteBuffer(bytes: bytes)
            precondition(WriteWireDecoding.agreesWithSwiftProtobuf(commit: buffer), "a commit read differently")
            precondition(WriteWireDecoding.agreesWithSwiftProtobuf(writeRequest: buffer), "a write request read differently")
        case .restWrites:
            let database = DatabaseName(project: "p", database: DatabaseName.defaultDatabase)
            precondition(
                RESTWriteReading.agreesWithTreePath(commit: ByteBuffer(bytes: bytes), database: database),
                "a REST commit read differently")
            precondition(RESTWriteReading.agreesWithTreePath(document: ByteBuffer(bytes: bytes)), "a REST document read differently")
        }
    }

    /// Splits `text` into WebSocket frames at newlines and feeds them to a new connection.
    private static func databaseWire(_ text: String) {
        let database = Database(name: "fuzz", rules: .open, clock: SystemClock())
        let connection = WireConnection(database: database, outboxLimit: 1_000)
        var assembler = FrameAssembler(limit: 1 << 16)
        for frame in text.split(separator: "\n", omittingEmptySubsequences: false) {
            switch assembler.receive(String(frame)) {
            case .pending: continue
            case .tooLarge: connection.close(); return
            case .message(let message):
                if !connection.receive(message) { connection.close(); return }
            }
        }
        connection.close()
    }

    /// Reads `bytes` as a multipart body with boundary `b` into a throwaway blob.
    private static func multipart(_ bytes: [UInt8]) {
        let done = DispatchSemaphore(value: 0)
        Task {
            defer { done.signal() }
            guard let store = try? ObjectStore(), let writer = try? store.newBlob() else { return }
            defer { writer.discard() }
            let body = FuzzBody(chunks: stride(from: 0, to: bytes.count, by: 7).map {
                ByteBuffer(bytes: bytes[$0..<min($0 + 7, bytes.count)])
            })
            _ = try? await MultipartRelated.read(body, boundary: "b", into: writer, limit: 1 << 20)
        }
        done.wait()
    }
}

/// A request body delivered in the given chunks.
struct FuzzBody: AsyncSequence {
    typealias Element = ByteBuffer
    let chunks: [ByteBuffer]

    struct AsyncIterator: AsyncIteratorProtocol {
        var remaining: ArraySlice<ByteBuffer>
        mutating func next() async throws -> ByteBuffer? { remaining.popFirst() }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(remaining: chunks[...]) }
}
