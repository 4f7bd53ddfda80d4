import FirestoreWire

/// The client side of a listen stream with one target, as a value-type state machine: responses in,
/// actions out, no I/O. It keeps the target's documents from the document changes, deletes and removes,
/// and makes a snapshot at each consistent point the server marks (a NO_CHANGE with no target ids and a
/// read time) once the target is CURRENT, if anything changed since the last one.
struct ListenState {
    /// What to do after a response.
    enum Action: Equatable {
        /// Nothing yet.
        case wait
        /// Deliver this snapshot.
        case emit(QuerySnapshot)
        /// The server removed the target without an error: the stream is done.
        case finish
        /// The server removed the target with this error (rules denial, invalid query).
        case fail(ClientError)
    }

    /// The id of the stream's one target.
    static let targetID: Int32 = 1

    private let root: String
    private let order: @Sendable (DocumentSnapshot, DocumentSnapshot) -> Bool
    /// The target's documents by path, as of the last response.
    private var documents: [String: DocumentSnapshot] = [:]
    /// Whether the server said the target is up to date.
    private var current = false
    /// The documents of the last snapshot delivered; nil before the first.
    private var delivered: [String: DocumentSnapshot]?

    /// A state for a target under `root` (the documents root) whose results sort by `order`.
    init(root: String, order: @escaping @Sendable (DocumentSnapshot, DocumentSnapshot) -> Bool) {
        self.root = root
        self.order = order
    }

    /// Takes in one response.
    mutating func receive(_ response: Google_Firestore_V1_ListenResponse) -> Action {
        switch response.responseType {
        case .targetChange(let change):
            return receive(change)
        case .documentChange(let change):
            if change.targetIds.contains(Self.targetID) {
                let document = DocumentSnapshot(change.document, root: root)
                documents[document.path] = document
            } else if change.removedTargetIds.contains(Self.targetID) {
                documents[path(change.document.name)] = nil
            }
        case .documentDelete(let delete) where delete.removedTargetIds.contains(Self.targetID):
            documents[path(delete.document)] = nil
        case .documentRemove(let remove) where remove.removedTargetIds.contains(Self.targetID):
            documents[path(remove.document)] = nil
        default:
            // Existence filters only follow resumed targets, which this client does not make.
            break
        }
        return .wait
    }

    private mutating func receive(_ change: Google_Firestore_V1_TargetChange) -> Action {
        let concernsTarget = change.targetIds.isEmpty || change.targetIds.contains(Self.targetID)
        switch change.targetChangeType {
        case .noChange where change.targetIds.isEmpty && change.hasReadTime && current:
            return snapshot(at: Timestamp(change.readTime)).map(Action.emit) ?? .wait
        case .current where concernsTarget:
            current = true
        case .reset where concernsTarget:
            documents = [:]
            current = false
        case .remove where concernsTarget:
            guard change.hasCause else { return .finish }
            return .fail(ClientError(grpcCode: Int(change.cause.code), message: change.cause.message))
        default:
            break
        }
        return .wait
    }

    /// The snapshot at `readTime` with the changes since the last one delivered; nil when nothing changed.
    private mutating func snapshot(at readTime: Timestamp) -> QuerySnapshot? {
        let previous = delivered ?? [:]
        var added: [DocumentSnapshot] = []
        var modified: [DocumentSnapshot] = []
        for (path, document) in documents {
            if let old = previous[path] {
                // A new version, as the SDKs tell: comparing the data would call a document holding NaN
                // modified every time.
                if old.updateTime != document.updateTime { modified.append(document) }
            } else {
                added.append(document)
            }
        }
        let removed = previous.filter { documents[$0.key] == nil }.map(\.value)
        if delivered != nil, added.isEmpty, modified.isEmpty, removed.isEmpty { return nil }
        delivered = documents
        let changes =
            removed.sorted(by: order).map { DocumentChange(kind: .removed, document: $0) }
            + added.sorted(by: order).map { DocumentChange(kind: .added, document: $0) }
            + modified.sorted(by: order).map { DocumentChange(kind: .modified, document: $0) }
        return QuerySnapshot(documents: documents.values.sorted(by: order), documentChanges: changes, readTime: readTime)
    }

    /// The path of the document named `name`.
    private func path(_ name: String) -> String { String(name.dropFirst(root.count + 1)) }
}
