import EmulatorCore
import Foundation

/// What a ListDocuments asks for besides its collection, decoded the same way from either transport:
/// REST's query parameters or gRPC's `ListDocumentsRequest`.
struct DocumentListing {
    /// The fields to return (all when `nil`).
    var mask: [FieldPath]?
    /// The most documents per page (`Int.max`: no limit).
    var pageSize: Int
    /// Whether missing documents that have subcollections are listed too, as bare names.
    var showMissing: Bool
    /// The order (empty: name order).
    var order: [QueryOrder]
    /// Where the page starts.
    var token: ListPageToken

    /// Decodes `orderBy` (`field [asc|desc], ...`) and `pageToken`; a `pageSize` of zero or less (or none)
    /// is no limit.
    init(mask: [FieldPath]?, pageSize: Int?, showMissing: Bool, orderBy: String?, pageToken: String?) throws(FirestoreError) {
        self.mask = mask
        self.pageSize = pageSize.map { $0 > 0 ? $0 : Int.max } ?? Int.max
        self.showMissing = showMissing
        order = try Self.order(orderBy)
        token = try ListPageToken(pageToken)
    }

    /// `orderBy` of ListDocuments: `field [asc|desc], ...`.
    private static func order(_ text: String?) throws(FirestoreError) -> [QueryOrder] {
        guard let text, !text.trimmingCharacters(in: .whitespaces).isEmpty else { return [] }
        var orders: [QueryOrder] = []
        for part in text.split(separator: ",") {
            let words = part.split(separator: " ").map(String.init)
            guard (1...2).contains(words.count), let field = FieldPath(parsing: words[0]),
                words.count == 1 || ["asc", "desc"].contains(words[1].lowercased())
            else {
                throw FirestoreError(.invalidArgument, "Invalid order_by \"\(text)\": expected \"field [asc|desc], ...\".")
            }
            orders.append(QueryOrder(field: field, descending: words.count == 2 && words[1].lowercased() == "desc"))
        }
        if orders.count == 1, orders[0] == QueryOrder(field: .documentName) { return [] }
        return orders
    }
}

/// Where the next page of a ListDocuments starts: after a document id (name order) or at an offset
/// (other orders). Opaque to clients: base64 of `a:<id>` or `o:<offset>`.
struct ListPageToken: Sendable {
    /// The last id of the previous page.
    var afterID: String?
    /// The number of results of previous pages.
    var offset = 0

    /// A token after `id`.
    init(afterID: String?) { self.afterID = afterID }

    /// A token at `offset`.
    init(offset: Int) { self.offset = offset }

    /// Decodes a client's `pageToken` (none: the first page).
    init(_ text: String?) throws(FirestoreError) {
        guard let text, !text.isEmpty else { return }
        guard let data = Data(base64Encoded: text), let decoded = String(data: data, encoding: .utf8),
            decoded.count >= 2
        else {
            throw FirestoreError(.invalidArgument, "Invalid page token.")
        }
        let value = String(decoded.dropFirst(2))
        if decoded.hasPrefix("a:") {
            afterID = value
        } else if decoded.hasPrefix("o:"), let offset = Int(value), offset >= 0 {
            self.offset = offset
        } else {
            throw FirestoreError(.invalidArgument, "Invalid page token.")
        }
    }

    /// The token clients send back.
    var encoded: String {
        Data((afterID.map { "a:" + $0 } ?? "o:\(offset)").utf8).base64EncodedString()
    }
}
