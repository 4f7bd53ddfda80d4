import Foundation
import HearthTesting

/// The chat app of shared/seeds as its tests see it: the rules files at the repo root, a test environment
/// with them loaded, fresh ids, and the app's writes.
///
/// The environment is the suite `hearth exec` started when its variables are set, else one started in this
/// process for the test. Every test makes its own users and conversations, so tests never meet, even when
/// they share one suite.
enum ChatApp {
    /// The repository's root, where the rules files and emulator.json are.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The text of the rules file `name` at the repo root.
    static func rules(_ name: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(name), encoding: .utf8)
    }

    /// Runs `body` with an environment that has the app's three rules files loaded, and cleans it up.
    static func run(_ body: (RulesTestEnvironment) async throws -> Void) async throws {
        try await withRulesTestEnvironment(
            firestoreRules: rules("firestore.rules"), storageRules: rules("storage.rules"),
            databaseRules: rules("database.rules.json"), body)
    }

    /// A user id no other test uses: `name-xxxxxxxx`.
    static func uid(_ name: String) -> String {
        "\(name)-\(UUID().uuidString.prefix(8).lowercased())"
    }

    /// Creates a conversation between `participants` as its first participant does, and returns its id.
    static func createConversation(_ participants: [String], in environment: RulesTestEnvironment) async throws -> String {
        let creator = environment.authenticatedContext(participants[0])
        let conversation = try creator.firestore().collection("conversations").document()
        try await conversation.setData([
            "participantIds": .array(participants.map { .string($0) }),
            "lastMessage": "",
            "lastMessageTimestamp": .serverTimestamp,
        ])
        return conversation.documentID
    }

    /// The messages of conversation `id` as `context` sees them, in the app's order (oldest first).
    static func messages(_ id: String, as context: RulesTestContext) throws -> Query {
        try context.firestore().collection("conversations/\(id)/messages").order(by: "timestamp")
    }

    /// A message as the app sends it: sender, text, a server timestamp, status `sent`, attachments.
    static func message(from sender: String, text: String, attachments: [FirestoreValue] = []) -> [String: FirestoreValue] {
        [
            "senderId": .string(sender), "text": .string(text), "timestamp": .serverTimestamp, "status": "sent",
            "attachments": .array(attachments),
        ]
    }

    /// `size` bytes that look like a PDF: the header, filler, and the end-of-file marker.
    static func pdf(size: Int) -> Data {
        let head = Data("%PDF-1.7\n".utf8)
        let tail = Data("\n%%EOF\n".utf8)
        precondition(size >= head.count + tail.count)
        var body = Data(count: size - head.count - tail.count)
        body.withUnsafeMutableBytes { bytes in
            for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 31 &+ 7) }
        }
        return head + body + tail
    }

    /// Where the app stores a message's PDF.
    static func documentPath(conversation: String, message: String) -> String {
        "documents/\(conversation)/\(message)/document.pdf"
    }

    /// Milliseconds since `start`, for the figures the scenarios print.
    static func milliseconds(since start: ContinuousClock.Instant) -> String {
        let elapsed = ContinuousClock.now - start
        let value = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        return String(format: "%.1f ms", value)
    }
}

extension AsyncThrowingStream.Iterator {
    /// The next element that satisfies `predicate`, skipping others; throws if the stream ends first.
    mutating func next(where predicate: (Element) -> Bool) async throws -> Element {
        while let element = try await next() {
            if predicate(element) { return element }
        }
        throw ChatTestError("The stream ended before the awaited update came.")
    }
}

/// A chat test's own failure (a stream that ended before what the test waits for).
struct ChatTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
