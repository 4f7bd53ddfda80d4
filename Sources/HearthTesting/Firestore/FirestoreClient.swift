import FirestoreWire
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix

/// A small Cloud Firestore client speaking the gRPC API (`google.firestore.v1.Firestore`) to the Firestore
/// emulator, as one user of an app would: documents, queries, transactions and snapshot listeners, every
/// request made with `identity`'s credential so the rules decide as they would for that user.
///
/// ```swift
/// let firestore = try FirestoreClient(address: address, projectID: "demo-chat", identity: alice)
/// try await firestore.document("conversations/c1").setData(["participantIds": ["alice", "bob"]])
/// for try await snapshot in firestore.collection("conversations/c1/messages").order(by: "timestamp").snapshots() { ... }
/// await firestore.close()
/// ```
///
/// Every refusal is a `ClientError` with the gRPC status's code (`permissionDenied` for rules denials).
public final class FirestoreClient: Sendable {
    typealias Stub = Google_Firestore_V1_Firestore.Client<HTTP2ClientTransport.Posix>

    /// The project the client reads and writes.
    public let projectID: String
    /// The database within the project (`(default)` unless named).
    public let databaseID: String
    /// Whom the client's requests speak for.
    public let identity: ClientIdentity

    let stub: Stub
    private let grpc: GRPCClient<HTTP2ClientTransport.Posix>
    /// Runs the client's connections until `close()` (or until the client is released).
    private let connections: Task<Void, Never>
    /// The credential every request carries (none when unauthenticated).
    let metadata: Metadata

    /// A client of the Firestore emulator at `address` for `projectID`'s database `databaseID`, speaking for
    /// `identity`. It connects on first use; `close()` ends it.
    public init(
        address: EmulatorAddress, projectID: String, databaseID: String = "(default)", identity: ClientIdentity
    ) throws {
        self.projectID = projectID
        self.databaseID = databaseID
        self.identity = identity
        var metadata = Metadata()
        if let authorization = identity.authorization() { metadata.addString(authorization, forKey: "authorization") }
        self.metadata = metadata
        let grpc = GRPCClient(
            transport: try HTTP2ClientTransport.Posix(
                target: .dns(host: address.host, port: address.port), transportSecurity: .plaintext))
        self.grpc = grpc
        stub = Stub(wrapping: grpc)
        connections = Task { try? await grpc.runConnections() }
    }

    deinit {
        connections.cancel()
    }

    /// Closes the connection, ending any listener still running. Safe to call more than once.
    public func close() async {
        grpc.beginGracefulShutdown()
        // Listeners never end on their own: cancelling the connections ends them rather than waiting.
        connections.cancel()
        await connections.value
    }

    /// The document at `path` (`conversations/c1`), which has an even number of segments; with any other
    /// number, every operation of the reference fails with `invalidArgument`.
    public func document(_ path: String) -> DocumentReference {
        DocumentReference(client: self, path: path)
    }

    /// The collection at `path` (`conversations` or `conversations/c1/messages`), which has an odd number of
    /// segments; with any other number, every operation of the reference and its queries fails with
    /// `invalidArgument`.
    public func collection(_ path: String) -> CollectionReference {
        CollectionReference(client: self, path: path)
    }

    // MARK: Names

    /// `projects/{projectID}/databases/{databaseID}`.
    var database: String { "projects/\(projectID)/databases/\(databaseID)" }
    /// The documents root: `projects/{projectID}/databases/{databaseID}/documents`.
    var root: String { database + "/documents" }

    /// The resource name of the document or collection at `path`.
    func name(_ path: String) -> String { path.isEmpty ? root : root + "/" + path }

    /// Fails with `invalidArgument` unless `path` names a document (an even number of segments, at least two)
    /// or, if not `document`, a collection (an odd number).
    static func validate(_ path: String, document: Bool) throws(ClientError) {
        let count = path.split(separator: "/").count
        if count > 0, count.isMultiple(of: 2) == document { return }
        let kind = document ? "document" : "collection"
        throw ClientError(
            .invalidArgument,
            message: "Invalid \(kind) path \"\(path)\": a \(kind) path needs an \(document ? "even" : "odd") number of "
                + "segments, this one has \(count).")
    }

    // MARK: Calls

    /// Call options: fail at once when the emulator cannot be reached (no waiting for it to come up), and
    /// give up on a unary call after a minute.
    static func options(timeout: Duration? = .seconds(60)) -> CallOptions {
        var options = CallOptions.defaults
        options.waitForReady = false
        options.timeout = timeout
        return options
    }

    /// Runs `body` with the stub, turning any failure into a `ClientError`.
    func call<Result: Sendable>(_ body: (Stub) async throws -> Result) async throws(ClientError) -> Result {
        do {
            return try await body(stub)
        } catch {
            throw ClientError(callFailure: error)
        }
    }

    /// Commits `writes` atomically (inside `transaction` when given).
    func commit(_ writes: [Google_Firestore_V1_Write], transaction: Data? = nil) async throws(ClientError) {
        var request = Google_Firestore_V1_CommitRequest()
        request.database = database
        request.writes = writes
        if let transaction { request.transaction = transaction }
        _ = try await call { [metadata] in try await $0.commit(request, metadata: metadata, options: Self.options()) }
    }

    /// Reads the document at `path` (inside `transaction` when given); a missing document is a snapshot
    /// that does not exist.
    func get(_ path: String, transaction: Data? = nil) async throws(ClientError) -> DocumentSnapshot {
        var request = Google_Firestore_V1_BatchGetDocumentsRequest()
        request.database = database
        request.documents = [name(path)]
        if let transaction { request.transaction = transaction }
        let response = try await call { [metadata] in
            try await $0.batchGetDocuments(request, metadata: metadata, options: Self.options()) { response in
                for try await message in response.messages where message.result != nil { return message }
                throw ClientError(.unknown, message: "BatchGetDocuments answered without the document.")
            }
        }
        guard case .found(let document) = response.result else { return DocumentSnapshot(path: path) }
        return DocumentSnapshot(document, root: root)
    }
}
