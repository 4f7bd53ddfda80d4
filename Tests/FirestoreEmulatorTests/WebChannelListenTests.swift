import Dispatch
import EmulatorCore
import FirestoreWire
import Foundation
import Logging
import NIOCore
import NIOPosix
import SwiftProtobuf
import Synchronization
import Testing

@testable import FirestoreEmulator

/// A WebChannel `Listen` session served on an event loop: requests delivered on the loop and elsewhere
/// reach its call in map order, and what it answers reaches the back channel.
@Suite struct WebChannelListenTests {
    let database = DatabaseName(project: "demo-webchannel-listen", database: "(default)")

    /// A map's JSON: add a query target on `rooms`, or remove it.
    func addTarget(_ id: Int32) -> String {
        #"{"database":"\#(database)","addTarget":{"targetId":\#(id),"query":{"parent":"\#(database)/documents","structuredQuery":{"from":[{"collectionId":"rooms"}]}}}}"#
    }

    func removeTarget(_ id: Int32) -> String {
        #"{"database":"\#(database)","removeTarget":\#(id)}"#
    }

    /// A session on `loop`, as the endpoint's handshake makes one.
    func session(on loop: any EventLoop) async throws -> WebChannelStream {
        let clock = SystemClock()
        let service = FirestoreService(
            store: try FirestoreStore(clock: clock), rules: FirestoreRules(logger: Logger(label: "test")), clock: clock)
        let grpc = FirestoreGRPCService(service: service)
        return try await loop.submit {
            let listen = WebChannelListen(service: grpc, credential: .owner, on: loop)
            let stream = WebChannelStream(
                id: "s", method: .listen,
                deliver: { map in
                    listen.receive(FirestoreGRPCService.request(try Google_Firestore_V1_ListenRequest(jsonString: map)))
                },
                finishRequests: { listen.close() })
            listen.attach(to: stream)
            return stream
        }.get()
    }

    /// What a streaming back channel of `stream` reads until `done` says it has seen enough (10 s at most).
    func backChannel(of stream: WebChannelStream, until done: @escaping @Sendable (String) -> Bool) async throws -> String {
        let text = Mutex("")
        let reader = Task {
            try await stream.serveBackChannel(acknowledging: 0, longPoll: false, timeout: nil) { chunk in
                text.withLock { $0 += chunk }
            }
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while !done(text.withLock { $0 }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        stream.close()
        _ = try? await reader.value
        return text.withLock { $0 }
    }

    @Test func requestsReadOnTheLoopWaitForThoseSentOverBeforeThem() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let stream = try await session(on: loop)
        // The loop is busy until `go`: the add target, delivered from this task, is sent over behind it.
        let go = DispatchSemaphore(value: 0)
        let onLoop = loop.submit {
            go.wait()
            // Read on the loop while the add waits its turn there: the remove must not overtake it.
            _ = try stream.receiveNow([removeTarget(2)], offset: 1, acknowledging: nil)
        }
        _ = try stream.receiveNow([addTarget(2)], offset: 0, acknowledging: nil)
        go.signal()
        try await onLoop.get()
        let text = try await backChannel(of: stream) { $0.contains(#""REMOVE""#) }
        let add = try #require(text.range(of: #""ADD""#))
        let remove = try #require(text.range(of: #""REMOVE""#))
        #expect(add.lowerBound < remove.lowerBound, "the target was added, then removed: \(text)")
    }

    @Test func aRequestReadOnTheLoopIsAnsweredWithItsForwardChannel() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let stream = try await session(on: loop)
        // Handed to the call at once: its ADD, CURRENT and snapshot are queued before the POST is answered
        // (its answer counts them: the last array id is past the ADD and CURRENT).
        let answer = try await loop.submit { try stream.receiveNow([addTarget(2)], offset: 0, acknowledging: nil) }.get()
        let fields = try #require(answer).dropFirst().dropLast().split(separator: ",").compactMap { Int($0) }
        #expect(fields.count == 3 && fields[1] >= 2, "[back channel, last array id, unsent bytes]: \(answer ?? "")")
        let text = try await backChannel(of: stream) { $0.contains(#""CURRENT""#) }
        #expect(text.contains(#""ADD""#))
    }
}
