import EmulatorCore
import Foundation
@testable import HearthTesting
import NIOHTTP1
import Suite
import Synchronization
import Testing

extension FirestoreClientTests {
    /// A started suite with only the Firestore emulator, and the clients a test made (closed at the end).
    final class Harness: Sendable {
        let address: EmulatorAddress
        private let clients = Mutex<[FirestoreClient]>([])

        init(address: EmulatorAddress) { self.address = address }

        /// A client speaking for `identity`.
        func client(_ identity: ClientIdentity) throws -> FirestoreClient {
            let client = try FirestoreClient(
                address: address, projectID: FirestoreClientTests.projectID, identity: identity)
            clients.withLock { $0.append(client) }
            return client
        }

        func closeAll() async {
            for client in clients.withLock({ $0 }) { await client.close() }
        }
    }

    /// Runs `body` against a Firestore emulator of its own (free port), with `rules` loaded if given.
    func withFirestore(
        isolation: isolated (any Actor)? = #isolation, rules: String? = nil, _ body: (Harness) async throws -> Void
    ) async throws {
        var config = SuiteConfig(projectID: Self.projectID)
        try config.apply(only: ["firestore"], project: nil, host: nil, ports: ["firestore=0", "hub=0"])
        let suite = try Suite(config: config)
        try await suite.start()
        let port = try #require(suite.emulator(.firestore)).port
        let harness = Harness(address: EmulatorAddress(host: "127.0.0.1", port: port))
        var failure: (any Error)?
        do {
            if let rules {
                _ = try await HTTPExchange.send(
                    .PUT, "\(harness.address.baseURL)/emulator/v1/projects/\(Self.projectID):securityRules",
                    json: ["rules": ["files": [["name": "firestore.rules", "content": .string(rules)]]]]
                ).checked()
            }
            try await body(harness)
        } catch {
            failure = error
        }
        await harness.closeAll()
        await suite.stop()
        if let failure { throw failure }
    }
}
