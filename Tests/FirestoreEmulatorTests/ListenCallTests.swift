import EmulatorCore
import FirestoreWire
import GRPCCore
import Logging
import NIOCore
import NIOPosix
import SwiftProtobuf
import Synchronization
import Testing

@testable import FirestoreEmulator

/// A `Listen` call on an event loop, with a stand-in for its stream: what it sends, and when it ends.
@Suite struct ListenCallTests {
    let database = DatabaseName(project: "demo-listen-call", database: "(default)")
    let admin = CallContext(credential: .owner, now: Timestamp(seconds: 0, nanos: 0))

    /// The stream a call writes to: the messages it sent and how it ended.
    final class Output: ImmediateGRPCStreamOutput, @unchecked Sendable {
        let eventLoop: any EventLoop
        let allocator = ByteBufferAllocator()
        var isWritable: Bool
        let sent = Mutex<[Google_Firestore_V1_ListenResponse]>([])
        let ended = Mutex<RPCError??>(nil)

        init(eventLoop: any EventLoop, isWritable: Bool) {
            self.eventLoop = eventLoop
            self.isWritable = isWritable
        }

        func send(framed messages: ByteBuffer) {
            var buffer = messages
            while buffer.readInteger(as: UInt8.self) != nil, let length = buffer.readInteger(as: UInt32.self),
                let bytes = buffer.readBytes(length: Int(length)),
                let message = try? Google_Firestore_V1_ListenResponse(serializedBytes: bytes)
            {
                sent.withLock { $0.append(message) }
            }
        }

        func finish(_ error: RPCError?) {
            ended.withLock { $0 = .some(error) }
        }
    }

    /// Starts a call listening to collection `rooms` on `loop`, writing to `output`.
    @discardableResult
    func listen(_ service: FirestoreService, on loop: any EventLoop, output: Output) async throws -> NIOLoopBound<ListenCall> {
        let database = database
        return try await loop.submit {
            let call = ListenCall(service: service, credential: .owner, output: output, loops: ListenLoops(feed: service.feed))
            let request = Google_Firestore_V1_ListenRequest.with {
                $0.database = database.description
                $0.addTarget.targetID = 2
                $0.addTarget.query.parent = database.description + "/documents"
                $0.addTarget.query.structuredQuery.from = [.with { $0.collectionID = "rooms" }]
            }
            call.receive(ByteBuffer(bytes: try request.serializedBytes() as [UInt8]))
            return NIOLoopBound(call, eventLoop: loop)
        }.get()
    }

    func commit(_ service: FirestoreService, _ id: String) throws {
        _ = try service.commit(
            CommitRequest(
                database: database,
                writes: [Write(path: DocumentPath(segments: ["rooms", id]), operation: .update(fields: ["n": .integer(1)]))]),
            admin)
    }

    /// Waits up to 10 s for `condition`.
    func eventually(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition(), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
    }

    @Test func aCallGetsItsTargetThenEveryCommit() async throws {
        let clock = SystemClock()
        let service = FirestoreService(
            store: try FirestoreStore(clock: clock), rules: FirestoreRules(logger: Logger(label: "test")), clock: clock)
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let output = Output(eventLoop: loop, isWritable: true)
        try await listen(service, on: loop, output: output)
        for id in ["a", "b"] { try commit(service, id) }
        try await eventually { output.sent.withLock { $0.filter { $0.documentChange.targetIds == [2] }.count } == 2 }
        let changed = output.sent.withLock { $0.compactMap { message -> String? in
                guard case .documentChange(let change) = message.responseType else { return nil }
                return change.document.name
            } }
        #expect(changed.map { $0.split(separator: "/").last.map(String.init) } == ["a", "b"])
        #expect(output.ended.withLock { $0 } == nil)
    }

    @Test func aClientThatEndsItsRequestsGetsItsTargetsSnapshotThenOK() async throws {
        let clock = SystemClock()
        let service = FirestoreService(
            store: try FirestoreStore(clock: clock), rules: FirestoreRules(logger: Logger(label: "test")), clock: clock)
        try commit(service, "a")
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let output = Output(eventLoop: loop, isWritable: true)
        let call = try await listen(service, on: loop, output: output)
        try await loop.submit { call.value.requestsEnded() }.get()
        try await eventually { output.ended.withLock { $0 } != nil }
        #expect(output.ended.withLock { $0 } == .some(nil))
        let kinds = output.sent.withLock { $0.map { message -> String in
            switch message.responseType {
            case .targetChange(let change): return "\(change.targetChangeType)"
            case .documentChange: return "document"
            default: return "other"
            }
        } }
        #expect(kinds == ["add", "document", "current", "noChange"])
    }

    @Test func aClientThatStopsReadingIsCutOffAtTheFeedsLimit() async throws {
        let clock = SystemClock()
        let service = FirestoreService(
            store: try FirestoreStore(clock: clock, feed: CommitFeed(limit: 3)), rules: FirestoreRules(logger: Logger(label: "test")),
            clock: clock)
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let output = Output(eventLoop: loop, isWritable: false)
        try await listen(service, on: loop, output: output)
        for id in ["a", "b", "c", "d"] { try commit(service, id) }
        try await eventually { output.ended.withLock { $0 } != nil }
        let ended = output.ended.withLock { $0 }
        #expect(ended??.code == .resourceExhausted)
        #expect(ended??.message == FirestoreError.listenerBehind.message)
    }
}
