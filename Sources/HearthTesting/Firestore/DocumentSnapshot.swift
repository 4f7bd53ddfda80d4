import FirestoreEmulator
import FirestoreWire

/// A document as read: its fields, or nothing when it does not exist.
public struct DocumentSnapshot: Sendable, Hashable {
    /// The document's path (`conversations/c1`).
    public let path: String
    /// The document's fields; nil when it does not exist.
    public let data: [String: FirestoreValue]?
    /// When the document was last written; nil when it does not exist.
    public let updateTime: Timestamp?

    /// The document's id, the last segment of its path.
    public var id: String { path.lastPathSegment }

    /// Whether the document exists.
    public var exists: Bool { data != nil }

    /// The value at `field`, a dot-separated path (`address.city`); nil if there is none.
    public subscript(field: String) -> FirestoreValue? {
        data.flatMap { FieldPath(dotted: field).value(in: $0) }
    }

    /// A document that does not exist.
    init(path: String) {
        self.path = path
        data = nil
        updateTime = nil
    }

    /// A document read from the wire.
    init(_ document: Google_Firestore_V1_Document, root: String) {
        path = String(document.name.dropFirst(root.count + 1))
        data = FirestoreValue.fields(document.fields, root: root)
        updateTime = Timestamp(document.updateTime)
    }
}
