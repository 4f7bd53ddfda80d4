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
    init(mask: [FieldPath]?, pageSize: Int?, showMissing: Bool, orderBy: String?, pageToken: String?) throws(APIError) {
        self.mask = mask
        self.pageSize = pageSize.map { $0 > 0 ? $0 : Int.max } ?? Int.max
        self.showMissing = showMissing
        order = try Self.order(orderBy)
        token = try ListPageToken(pageToken)
    }

    /// `orderBy` of ListDocuments: `field [asc|desc], ...`.
    private static func order(_ text: String?) throws(APIError) -> [QueryOrder] {
        guard let text, !text.trimmingCharacters(in: .whitespaces).isEmpty else { return [] }
        var orders: [QueryOrder] = []
        for part in text.split(separator: ",") {
            let words = part.split(separator: " ").map(String.init)
            guard (1...2).contains(words.count), let field = FieldPath(parsing: words[0]),
                words.count == 1 || ["asc", "desc"].contains(words[1].lowercased())
            else {
                throw .firestore(.invalidArgument, "Invalid order_by \"\(text)\": expected \"field [asc|desc], ...\".")
            }
            orders.append(QueryOrder(field: field, descending: words.count == 2 && words[1].lowercased() == "desc"))
        }
        if orders.count == 1, orders[0] == QueryOrder(field: .documentName) { return [] }
        return orders
    }
}
