import EmulatorCore

/// A database: `projects/{project}/databases/{database}`.
struct DatabaseName: Sendable, Hashable, CustomStringConvertible {
    var project: String
    var database: String

    /// The default database's id.
    static let defaultDatabase = "(default)"

    /// `projects/{project}/databases/{database}`.
    var description: String { "projects/\(project)/databases/\(database)" }

    /// `projects/{project}/databases/{database}/documents`, the root of every document name.
    var documentsRoot: String { description + "/documents" }
}

/// A path below a database's documents root: `users/alice` (a document, even length) or
/// `users/alice/posts` (a collection, odd length). The empty path is the root.
struct DocumentPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The segments, alternating collection id and document id.
    var segments: [String]

    /// The most segments production allows (100 levels of subcollections).
    static let maximumDepth = 200

    /// A path of `segments`.
    init(segments: [String]) {
        self.segments = segments
    }

    /// Whether the path names a document (non-empty, even number of segments).
    var isDocument: Bool { !segments.isEmpty && segments.count.isMultiple(of: 2) }

    /// Whether the path names a collection (odd number of segments).
    var isCollection: Bool { !segments.count.isMultiple(of: 2) }

    /// The last segment: a document id or a collection id.
    var lastSegment: String? { segments.last }

    /// The path one level up.
    var parent: DocumentPath { DocumentPath(segments: Array(segments.dropLast())) }

    /// This path with `segment` appended.
    func appending(_ segment: String) -> DocumentPath { DocumentPath(segments: segments + [segment]) }

    /// Whether `self` is an ancestor of (or equal to) `other`.
    func isPrefix(of other: DocumentPath) -> Bool {
        other.segments.count >= segments.count && Array(other.segments.prefix(segments.count)) == segments
    }

    /// `users/alice`.
    var description: String { segments.joined(separator: "/") }

    /// Document order: segment by segment as references order, shorter first.
    static func < (lhs: DocumentPath, rhs: DocumentPath) -> Bool {
        for (a, b) in zip(lhs.segments, rhs.segments) {
            let result = FirestoreValue.compareSegments(Substring(a), Substring(b))
            if result != 0 { return result < 0 }
        }
        return lhs.segments.count < rhs.segments.count
    }

    /// The full resource name in `database`.
    func name(in database: DatabaseName) -> String {
        // Appended into one string (interpolating and joining made four, on every document a call returns).
        // 30: the bytes of "projects/", "/databases/" and "/documents".
        var name = ""
        name.reserveCapacity(
            30 + database.project.utf8.count + database.database.utf8.count + segments.reduce(0) { $0 + $1.utf8.count + 1 })
        name += "projects/"
        name += database.project
        name += "/databases/"
        name += database.database
        name += "/documents"
        for segment in segments {
            name += "/"
            name += segment
        }
        return name
    }
}

extension DocumentPath {
    /// Splits a resource name `projects/{p}/databases/{d}/documents[/...]` into its database and path,
    /// validating every id; errors are production's INVALID_ARGUMENT messages.
    static func parse(resourceName name: String) throws(FirestoreError) -> (DatabaseName, DocumentPath) {
        try parse(resourceParts: name.pieces(separatedBy: UInt8(ascii: "/")), name: name)
    }

    /// Parses a resource name already split at its slashes (`parts`, none containing one); `name`, the name
    /// they spell, is built only for an error's message.
    static func parse(resourceParts parts: [String], name: @autoclosure () -> String) throws(FirestoreError) -> (DatabaseName, DocumentPath) {
        guard parts.count >= 5, parts[0] == "projects", parts[2] == "databases", parts[4] == "documents",
            !parts[1].isEmpty, !parts[3].isEmpty
        else {
            throw FirestoreError(.invalidArgument, "Invalid resource name \"\(name())\": expected projects/{project}/databases/{database}/documents/...")
        }
        let segments = Array(parts.dropFirst(5))
        for segment in segments { try validateID(segment) }
        guard segments.count <= maximumDepth else {
            throw FirestoreError(.invalidArgument, "Document name \"\(name())\" has too many path segments (at most \(maximumDepth)).")
        }
        return (DatabaseName(project: parts[1], database: parts[3]), DocumentPath(segments: segments))
    }

    /// Parses the name of a document (even number of segments below the root).
    static func parse(documentName name: String) throws(FirestoreError) -> (DatabaseName, DocumentPath) {
        let (database, path) = try parse(resourceName: name)
        guard path.isDocument else {
            throw FirestoreError(.invalidArgument, "Document name \"\(name)\" lacks \"/\" at index \(name.count).")
        }
        return (database, path)
    }

    /// The number of an id of the numeric form, `__id<decimal>__` (an optional `-`, no leading zero, so not 0):
    /// the one `__…__` form production accepts, a legacy Datastore integer id, as exports hold them.
    static func numericDigits(_ id: String) -> Substring? {
        guard id.hasPrefix("__id"), id.hasSuffix("__"), id.count > 6 else { return nil }
        let digits = id.dropFirst(4).dropLast(2)
        let magnitude = digits.first == "-" ? digits.dropFirst() : digits
        guard let first = magnitude.first, first != "0", magnitude.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            return nil
        }
        return digits
    }

    /// Whether `id` is a numeric id whose number fits in 64 bits.
    static func isNumericID(_ id: String) -> Bool { numericDigits(id).flatMap { Int64($0) } != nil }

    /// Checks a collection or document id against production's rules: non-empty, at most 1,500 UTF-8
    /// bytes, not `.` or `..`, not `__…__` (but `__id<int64>__`), no `/`.
    static func validateID(_ id: String) throws(FirestoreError) {
        if id.isEmpty { throw FirestoreError(.invalidArgument, "Resource id \"\" is invalid because it is empty.") }
        let bytes = id.utf8
        if bytes.count <= 1500, bytes.first != UInt8(ascii: "."), bytes.first != UInt8(ascii: "_"),
            !bytes.contains(UInt8(ascii: "/"))
        {
            return
        }
        if id.contains("/") { throw FirestoreError(.invalidArgument, "Resource id \"\(id)\" is invalid because it contains \"/\".") }
        if let digits = numericDigits(id), Int64(digits) == nil {
            throw FirestoreError(.invalidArgument, "Resource id \"\(id)\" is invalid because it is not a 64 bit integer.")
        }
        if id == "." || id == ".." || (id.hasPrefix("__") && id.hasSuffix("__") && id.count >= 4 && !isNumericID(id)) {
            throw FirestoreError(.invalidArgument, "Resource id \"\(id)\" is invalid because it is reserved.")
        }
        if id.utf8.count > 1500 {
            throw FirestoreError(.invalidArgument, "Resource id \"\(id.prefix(20))...\" is invalid because it is longer than 1500 bytes.")
        }
    }
}
