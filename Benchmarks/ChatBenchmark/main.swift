// Prints the chat app's figures with HearthTesting's clients against a suite in this process, over real
// loopback sockets, with the repo's rules files loaded:
//
//     swift run -c release ChatBenchmark
//
// - starting the whole suite in process (HearthEmulators.start) and loading the three rules files;
// - scenario 1: A uploads a 1 MiB PDF and writes its message → B's listener sees it → B has the bytes;
// - scenario 2: a 10 MiB PDF upload, multipart and resumable;
// - scenario 3: A's connection is cut → B's listener sees A offline.
// It asserts nothing; the seed's requirements are printed beside the figures.

import Foundation
import HearthTesting

let rounds = 40
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

func rules(_ name: String) throws -> String {
    try String(contentsOf: root.appendingPathComponent(name), encoding: .utf8)
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

/// `p50 / p99 / max` of `samples`.
func summary(_ samples: [Duration]) -> String {
    let sorted = samples.map(milliseconds).sorted()
    func at(_ quantile: Double) -> Double {
        sorted[max(0, min(sorted.count - 1, Int((Double(sorted.count) * quantile).rounded(.up)) - 1))]
    }
    return String(format: "p50 %.2f ms, p99 %.2f ms, max %.2f ms (%d runs)", at(0.5), at(0.99), sorted.last ?? 0, sorted.count)
}

/// `size` bytes shaped like a PDF.
func pdf(size: Int) -> Data {
    Data("%PDF-1.7\n".utf8) + Data(repeating: 0x41, count: size - 16) + Data("\n%%EOF\n".utf8)
}

/// The next element of `iterator` that satisfies `predicate`.
func next<Element>(
    _ iterator: inout AsyncThrowingStream<Element, any Error>.Iterator, where predicate: (Element) -> Bool
) async throws -> Element {
    while let element = try await iterator.next() {
        if predicate(element) { return element }
    }
    throw ClientError(.unavailable, message: "the stream ended")
}

/// Runs every measurement and prints it.
func run() async throws {
    var starts: [Duration] = []
    for _ in 0..<10 {
        let begin = ContinuousClock.now
        let emulators = try await HearthEmulators.start(projectID: "demo-bench-start")
        starts.append(ContinuousClock.now - begin)
        await emulators.stop()
    }
    print("suite start in process (auth, firestore, database, storage, hub on free ports): \(summary(starts))")

    let emulators = try await HearthEmulators.start(projectID: "demo-bench")
    let environment = try await RulesTestEnvironment(
        firestoreRules: rules("firestore.rules"), storageRules: rules("storage.rules"),
        databaseRules: rules("database.rules.json"), emulators: emulators)
    let alice = environment.authenticatedContext("alice")
    let bob = environment.authenticatedContext("bob")
    try await alice.firestore().document("conversations/c1").setData(["participantIds": ["alice", "bob"]])

    // Scenario 1.
    var messages = try bob.firestore().collection("conversations/c1/messages").snapshots().makeAsyncIterator()
    _ = try await next(&messages) { _ in true }
    let small = pdf(size: 1 << 20)
    var deliveries: [Duration] = []
    for round in 0..<rounds {
        let begin = ContinuousClock.now
        let id = "m\(round)"
        let path = "documents/c1/\(id)/document.pdf"
        _ = try await alice.storage().reference(path).putData(small, metadata: StorageMetadata(contentType: "application/pdf"))
        try await alice.firestore().document("conversations/c1/messages/\(id)").setData([
            "senderId": "alice", "text": "", "timestamp": .serverTimestamp, "status": "sent",
            "attachments": [["id": .string(id), "type": "file", "fileName": "document.pdf"]],
        ])
        _ = try await next(&messages) { $0.documents.contains { $0.id == id } }
        let bytes = try await bob.storage().reference(path).data()
        deliveries.append(ContinuousClock.now - begin)
        precondition(bytes == small)
    }
    print("scenario 1, 1 MiB PDF upload + message → B's listener → B's download: \(summary(deliveries)) (seed: 3 s)")

    // Scenario 2.
    let big = pdf(size: 10 << 20)
    var multipart: [Duration] = []
    var resumable: [Duration] = []
    for round in 0..<rounds / 4 {
        let file = try alice.storage().reference("documents/c1/big\(round)/document.pdf")
        var begin = ContinuousClock.now
        _ = try await file.putData(big, metadata: StorageMetadata(contentType: "application/pdf"))
        multipart.append(ContinuousClock.now - begin)
        begin = ContinuousClock.now
        _ = try await file.putDataResumable(big, metadata: StorageMetadata(contentType: "application/pdf"))
        resumable.append(ContinuousClock.now - begin)
    }
    print("scenario 2, 10 MiB PDF upload, multipart: \(summary(multipart)) (seed: 10 s)")
    print("scenario 2, 10 MiB PDF upload, resumable (1 MiB chunks): \(summary(resumable))")

    // Scenario 3.
    let watcher = try await bob.database()
    guard let databaseAddress = emulators.database else { fatalError("the database emulator did not start") }
    var offline: [Duration] = []
    for round in 0..<rounds {
        let user = "alice\(round)"
        let client = try await DatabaseClient.connect(
            address: databaseAddress, namespace: environment.databaseNamespace,
            identity: .user(user, projectID: environment.projectID))
        let presence = client.reference("presence/\(user)")
        try await presence.onDisconnectSetValue(["online": false, "lastSeen": ServerValue.timestamp])
        try await presence.setValue(["online": true, "lastSeen": ServerValue.timestamp])
        var seen = watcher.reference("presence/\(user)").snapshots().makeAsyncIterator()
        _ = try await next(&seen) { $0.value["online"] == true }
        let begin = ContinuousClock.now
        await client.interrupt()
        _ = try await next(&seen) { $0.value["online"] == false }
        offline.append(ContinuousClock.now - begin)
    }
    print("scenario 3, connection cut → B sees offline: \(summary(offline)) (seed: 1-2 s in production)")

    await environment.cleanup()
    await emulators.stop()
}

try await run()
