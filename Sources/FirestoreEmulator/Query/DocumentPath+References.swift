extension DocumentPath {
    /// Splits a `referenceValue` (`projects/{p}/databases/{d}/documents[/...]`) into its database and path
    /// without validating ids: query operands may name documents no write could create, such as the
    /// `__id-9223372036854775808__` bounds the Node.js SDK's `recursiveDelete` uses. `nil` when the name is not
    /// of that shape.
    static func parse(reference name: String) -> (DatabaseName, DocumentPath)? {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 5, parts[0] == "projects", parts[2] == "databases", parts[4] == "documents",
            !parts[1].isEmpty, !parts[3].isEmpty
        else { return nil }
        let database = DatabaseName(project: String(parts[1]), database: String(parts[3]))
        return (database, DocumentPath(segments: parts.dropFirst(5).map(String.init)))
    }

    /// -1, 0 or 1 in document name order (segment by segment as references order, shorter first).
    func compare(to other: DocumentPath) -> Int {
        for (a, b) in zip(segments, other.segments) {
            let result = FirestoreValue.compareSegments(Substring(a), Substring(b))
            if result != 0 { return result }
        }
        return segments.count == other.segments.count ? 0 : (segments.count < other.segments.count ? -1 : 1)
    }
}
