import EmulatorCore

/// Document ids in Firestore's name order: numeric `__id<n>__` ids first, then UTF-8 byte order.
enum DocumentIDOrder: ChunkOrder {
    static func precedes(_ a: String, _ b: String) -> Bool {
        if a.utf8.first != UInt8(ascii: "_"), b.utf8.first != UInt8(ascii: "_") {
            return FirestoreValue.compareUTF8(a.utf8, b.utf8) < 0
        }
        return FirestoreValue.compareSegments(Substring(a), Substring(b)) < 0
    }
}

/// The ids of one collection's documents in Firestore's name order.
typealias SortedIDs = SortedChunks<DocumentIDOrder>

extension SortedChunks where Order == DocumentIDOrder {
    /// Whether `a` sorts before `b` as document ids do.
    static func precedes(_ a: String, _ b: String) -> Bool { DocumentIDOrder.precedes(a, b) }

    /// The ids in order, starting at the first id not before `start` (all of them when `nil`).
    func ids(from start: String? = nil) -> Elements { elements(from: start) }
}
