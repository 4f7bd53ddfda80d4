import FirestoreWire
import Foundation
import SwiftProtobuf
import Synchronization

/// One attempt of `FirestoreClient.runTransaction`: reads go to the server inside the transaction, writes
/// wait here and are committed together with it.
public final class Transaction: Sendable {
    private let client: FirestoreClient
    /// The server's id of the transaction.
    let id: Data
    private let pending = Mutex<[Google_Firestore_V1_Write]>([])

    init(client: FirestoreClient, id: Data) {
        self.client = client
        self.id = id
    }

    /// The writes to commit, in the order they were made.
    var writes: [Google_Firestore_V1_Write] { pending.withLock { $0 } }

    /// Reads `document` inside the transaction: the commit fails (and the transaction is retried) if it
    /// changes before then.
    public func getDocument(_ document: DocumentReference) async throws(ClientError) -> DocumentSnapshot {
        try document.validate()
        return try await client.get(document.path, transaction: id)
    }

    /// Writes `data` to `document` at commit, as `DocumentReference.setData(_:merge:)` does.
    public func setData(_ data: [String: FirestoreValue], forDocument document: DocumentReference, merge: Bool = false)
        throws(ClientError)
    {
        try document.validate()
        let write = try WriteData(setting: data, merge: merge, root: client.root).write(to: document.name)
        pending.withLock { $0.append(write) }
    }

    /// Updates `fields` of `document` at commit, as `DocumentReference.updateData(_:)` does; the commit fails
    /// with `notFound` if the document does not exist then.
    public func updateData(_ fields: [String: FirestoreValue], forDocument document: DocumentReference)
        throws(ClientError)
    {
        try document.validate()
        let write = try WriteData(updating: fields, root: client.root).write(to: document.name, exists: true)
        pending.withLock { $0.append(write) }
    }

    /// Deletes `document` at commit.
    public func deleteDocument(_ document: DocumentReference) throws(ClientError) {
        try document.validate()
        let name = document.name
        pending.withLock { $0.append(.with { $0.delete = name }) }
    }
}
