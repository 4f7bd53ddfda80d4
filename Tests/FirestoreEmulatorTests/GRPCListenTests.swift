import EmulatorCore
import FirestoreWire
import Foundation
import GRPCCore
import SwiftProtobuf
import Synchronization
import Testing

@testable import FirestoreEmulator

/// `Listen` driven as the mobile SDKs drive it: targets added and removed on one stream, changes after
/// commits, a resume token after reconnecting, and a target the rules deny.
@Suite struct GRPCListenTests {
    private static func queryTarget(_ id: Int32, _ firestore: GRPCHarness, resumeToken: Data? = nil) -> Google_Firestore_V1_ListenRequest {
        .with {
            $0.database = firestore.database
            $0.addTarget.targetID = id
            $0.addTarget.query.parent = firestore.root
            $0.addTarget.query.structuredQuery.from = [.with { $0.collectionID = "rooms" }]
            if let resumeToken { $0.addTarget.resumeToken = resumeToken }
        }
    }

    /// Opens a Listen stream and runs `body` with it.
    static func listen(
        _ firestore: GRPCHarness, metadata: Metadata = .owner,
        _ body: @escaping @Sendable (inout ListenStreamClient) async throws -> Void
    ) async throws {
        let (requests, continuation) = AsyncStream.makeStream(of: Google_Firestore_V1_ListenRequest.self)
        try await firestore.client.listen(
            metadata: metadata,
            requestProducer: { writer in
                for await request in requests { try await writer.write(request) }
            },
            onResponse: { response in
                defer { continuation.finish() }
                var stream = ListenStreamClient(
                    requests: continuation, responses: response.messages.makeAsyncIterator(), root: firestore.root)
                try await body(&stream)
            })
    }

    @Test(arguments: GRPCHarness.Server.allCases) func targetsGetTheirStateThenEveryChangeThenResumeAfterReconnecting(server: GRPCHarness.Server) async throws {
        try await GRPCHarness.run(server) { firestore in
            try await firestore.set("rooms/a", ["n": .integer(1)])
            let token = Mutex<Data?>(nil)
            try await Self.listen(firestore) { stream in
                stream.send(Self.queryTarget(2, firestore))
                var initial = try await stream.next(4)
                #expect(initial.map(\.text) == ["add[2]", "change rooms/a [2] -[]", "current[2]", "noChange[] @"])
                let current = initial.remove(at: 2).response.targetChange
                #expect(!current.resumeToken.isEmpty)

                try await firestore.set("rooms/b", ["n": .integer(2)])
                let received1 = try await stream.next(2)
                #expect(received1.map(\.text) == ["change rooms/b [2] -[]", "noChange[] @"])
                var delete = Google_Firestore_V1_CommitRequest()
                delete.database = firestore.database
                delete.writes = [.with { $0.delete = firestore.name("rooms/a") }]
                _ = try await firestore.client.commit(delete, metadata: .owner)
                let deleted = try await stream.next(2)
                #expect(deleted.map(\.text) == ["delete rooms/a -[2]", "noChange[] @"])
                token.withLock { $0 = deleted[1].response.targetChange.resumeToken }

                stream.send(.with {
                    $0.database = firestore.database
                    $0.addTarget.targetID = 4
                    $0.addTarget.documents.documents = [firestore.name("rooms/missing")]
                })
                let received2 = try await stream.next(3)
                #expect(received2.map(\.text) == ["add[4]", "current[4]", "noChange[] @"])
                stream.send(.with { $0.database = firestore.database; $0.removeTarget = 2 })
                let received3 = try await stream.next(1)
                #expect(received3.map(\.text) == ["remove[2]"])
                try await firestore.set("rooms/missing", [:])
                let received4 = try await stream.next(2)
                #expect(received4.map(\.text) == ["change rooms/missing [4] -[]", "noChange[] @"])
            }
            let resumeToken = try #require(token.withLock { $0 })
            try await Self.listen(firestore) { stream in
                stream.send(Self.queryTarget(2, firestore, resumeToken: resumeToken))
                // Only what changed since the token, then the count the client must now have.
                let received5 = try await stream.next(5)
                #expect(received5.map(\.text) == [
                    "add[2]", "change rooms/missing [2] -[]", "filter 2 2", "current[2]", "noChange[] @",
                ])
            }
        }
    }

    @Test(arguments: GRPCHarness.Server.allCases) func aTargetTheRulesDenyIsRemovedWithPermissionDenied(server: GRPCHarness.Server) async throws {
        try await GRPCHarness.run(server) { firestore in
            firestore.loadRules("""
                rules_version = '2';
                service cloud.firestore {
                  match /databases/{database}/documents {
                    match /rooms/{id} { allow read: if request.auth.uid == 'alice'; }
                  }
                }
                """)
            try await Self.listen(firestore, metadata: .user("eve")) { stream in
                stream.send(Self.queryTarget(2, firestore))
                let received6 = try await stream.next(2)
                #expect(received6.map(\.text) == ["add[2]", "remove[2] cause 7"])
            }
            try await Self.listen(firestore, metadata: .user("alice")) { stream in
                stream.send(Self.queryTarget(2, firestore))
                let received7 = try await stream.next(3)
                #expect(received7.map(\.text) == ["add[2]", "current[2]", "noChange[] @"])
            }
        }
    }
}

/// Renders listen responses compactly for assertions.
enum GRPCListenTestsRender {
    /// A compact rendering of a response for assertions.
    static func render(_ response: Google_Firestore_V1_ListenResponse, root: String) -> String {
        switch response.responseType {
        case .targetChange(let change):
            var text = "\(change.targetChangeType)\(change.targetIds)"
            if change.hasCause { text += " cause \(change.cause.code)" }
            if change.hasReadTime { text += " @" }
            return text
        case .documentChange(let change):
            return "change \(change.document.name.dropFirst(root.count + 1)) \(change.targetIds) -\(change.removedTargetIds)"
        case .documentDelete(let delete): return "delete \(delete.document.dropFirst(root.count + 1)) -\(delete.removedTargetIds)"
        case .documentRemove(let remove): return "remove \(remove.document.dropFirst(root.count + 1)) -\(remove.removedTargetIds)"
        case .filter(let filter): return "filter \(filter.targetID) \(filter.count)"
        case nil: return "empty"
        }
    }
}

/// The client end of a Listen stream.
struct ListenStreamClient {
    let requests: AsyncStream<Google_Firestore_V1_ListenRequest>.Continuation
    var responses: RPCAsyncSequence<Google_Firestore_V1_ListenResponse, any Error>.AsyncIterator
    let root: String

    /// Sends `request`.
    func send(_ request: Google_Firestore_V1_ListenRequest) { requests.yield(request) }

    /// The next `count` responses, each with its rendering.
    mutating func next(_ count: Int) async throws -> [(text: String, response: Google_Firestore_V1_ListenResponse)] {
        var received: [(text: String, response: Google_Firestore_V1_ListenResponse)] = []
        while received.count < count {
            guard let response = try await responses.next() else {
                throw RPCError(code: .unknown, message: "The listen stream ended after \(received.map(\.text)).")
            }
            received.append((GRPCListenTestsRender.render(response, root: root), response))
        }
        return received
    }
}
