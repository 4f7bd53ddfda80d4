import FirestoreWire
import NIOCore
import SwiftProtobuf

/// Writes listen events as gRPC-framed `ListenResponse` messages. A commit handed to many listen calls
/// mostly repeats the same messages: the same changed documents (differing only in their target ids) and
/// the same snapshot, and often the very same events (listeners of one query with the same target id).
/// An encoder kept for one pass frames each distinct list of events once and hands every call with that
/// list the same bytes (`framed`), serializes each document version and each snapshot once, and builds
/// the other calls' messages around those bytes; the bytes are those SwiftProtobuf writes for the same
/// message.
struct ListenResponseEncoder {
    /// The database whose resource names the messages carry.
    let database: DatabaseName
    private var documents: [DocumentVersion: [UInt8]] = [:]
    private var snapshots: [Timestamp: [UInt8]] = [:]
    /// The last distinct event lists framed by `framed`, with their bytes.
    private var rendered: [(events: [ListenEvent], framed: ByteBuffer)] = []
    /// How many distinct event lists `framed` keeps: a pass's calls mostly differ in a few target ids.
    private static let renderedLimit = 8

    private struct DocumentVersion: Hashable {
        var path: DocumentPath
        var updateTime: Timestamp
    }

    /// An encoder for messages in `database`.
    init(database: DatabaseName) {
        self.database = database
    }

    /// Each event's message with its gRPC prefix, in one buffer. Events equal to those of an earlier call
    /// (`ListenEvent.isSame`) get the bytes framed for it: the buffers share their storage, so the pass
    /// writes one copy to every connection's streams.
    mutating func framed(_ events: [ListenEvent], allocator: ByteBufferAllocator) -> ByteBuffer {
        if let known = rendered.first(where: { ListenEvent.isSame($0.events, events) }) { return known.framed }
        var buffer = allocator.buffer(capacity: 256)
        frame(events, into: &buffer)
        if rendered.count == Self.renderedLimit { rendered.removeFirst() }
        rendered.append((events, buffer))
        return buffer
    }

    /// Appends each event's message, with its gRPC prefix (uncompressed, length), to `buffer`.
    mutating func frame(_ events: [ListenEvent], into buffer: inout ByteBuffer) {
        for event in events {
            switch event {
            case .documentChange(let document, let targetIDs, let removedTargetIDs):
                let version = DocumentVersion(path: document.path, updateTime: document.updateTime)
                let bytes: [UInt8]
                if let known = documents[version] {
                    bytes = known
                } else {
                    bytes = document.protoBytes(in: database)
                    documents[version] = bytes
                }
                Self.frameDocumentChange(bytes, targetIDs: targetIDs, removedTargetIDs: removedTargetIDs, into: &buffer)
            case .targetChange(.noChange, let ids, nil, let resumeTime?, let readTime?) where ids.isEmpty && resumeTime == readTime:
                let bytes: [UInt8]
                if let known = snapshots[readTime] {
                    bytes = known
                } else {
                    bytes = Self.serialized(event, in: database)
                    snapshots[readTime] = bytes
                }
                buffer.writeGRPCMessage(bytes)
            default:
                buffer.writeGRPCMessage(Self.serialized(event, in: database))
            }
        }
    }

    private static func serialized(_ event: ListenEvent, in database: DatabaseName) -> [UInt8] {
        (try? FirestoreGRPCService.message(for: event, in: database).serializedBytes()) ?? []
    }

    // Wire form of `ListenResponse { document_change (3): DocumentChange { document (1), target_ids (5),
    // removed_target_ids (6) } }`, the repeated fields packed, in field order as SwiftProtobuf writes them.
    private static let documentChangeTag: UInt8 = 3 << 3 | 2
    private static let documentTag: UInt8 = 1 << 3 | 2
    private static let targetIDsTag: UInt8 = 5 << 3 | 2
    private static let removedTargetIDsTag: UInt8 = 6 << 3 | 2

    private static func frameDocumentChange(
        _ document: [UInt8], targetIDs: [Int32], removedTargetIDs: [Int32], into buffer: inout ByteBuffer
    ) {
        let targets = packedSize(targetIDs)
        let removed = packedSize(removedTargetIDs)
        var change = 1 + ProtoVarint.size(UInt64(document.count)) + document.count
        if targets > 0 { change += 1 + ProtoVarint.size(UInt64(targets)) + targets }
        if removed > 0 { change += 1 + ProtoVarint.size(UInt64(removed)) + removed }
        let message = 1 + ProtoVarint.size(UInt64(change)) + change
        buffer.writeGRPCPrefix(length: message)
        buffer.writeInteger(documentChangeTag)
        ProtoVarint.write(UInt64(change), into: &buffer)
        buffer.writeInteger(documentTag)
        ProtoVarint.write(UInt64(document.count), into: &buffer)
        buffer.writeBytes(document)
        writePacked(targetIDs, size: targets, tag: targetIDsTag, into: &buffer)
        writePacked(removedTargetIDs, size: removed, tag: removedTargetIDsTag, into: &buffer)
    }

    /// Writes field `tag` of packed `ids`, whose varints take `size` bytes (nothing when empty).
    private static func writePacked(_ ids: [Int32], size: Int, tag: UInt8, into buffer: inout ByteBuffer) {
        guard size > 0 else { return }
        buffer.writeInteger(tag)
        ProtoVarint.write(UInt64(size), into: &buffer)
        for id in ids { ProtoVarint.write(UInt64(bitPattern: Int64(id)), into: &buffer) }
    }

    /// The bytes of `ids` as packed varints (an int32 below zero takes ten, sign-extended).
    private static func packedSize(_ ids: [Int32]) -> Int {
        ids.reduce(0) { $0 + ProtoVarint.size(UInt64(bitPattern: Int64($1))) }
    }

}

extension ListenEvent {
    /// Whether two event lists of one commit's pass say the same. Equal events, except that a document
    /// change compares its document's path and update time, not its fields: in one pass they name one
    /// version of the document.
    static func isSame(_ lhs: [ListenEvent], _ rhs: [ListenEvent]) -> Bool {
        lhs.count == rhs.count
            && zip(lhs, rhs).allSatisfy { left, right in
                guard case .documentChange(let document, let ids, let removed) = left,
                    case .documentChange(let other, let otherIDs, let otherRemoved) = right
                else { return left == right }
                return document.path == other.path && document.updateTime == other.updateTime && ids == otherIDs
                    && removed == otherRemoved
            }
    }
}
