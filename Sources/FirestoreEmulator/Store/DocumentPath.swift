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
        var text = name
        if let plain = text.withUTF8({ plain(resourceName: $0) }) { return plain }
        return try parse(resourceParts: name.pieces(separatedBy: UInt8(ascii: "/")), name: name)
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

    /// The database and path of the resource name `bytes` when it is plainly one: `projects/{p}/databases/{d}/documents`,
    /// then ids `plainSegments` takes; `nil` for anything else, which `parse(resourceParts:name:)` reads (and
    /// takes or refuses with its words). Read on the bytes: splitting the name into strings first and
    /// checking each cost thousands of instructions on every REST call.
    static func plain(resourceName bytes: UnsafeBufferPointer<UInt8>) -> (DatabaseName, DocumentPath)? {
        var pieces = SlashPieces(bytes)
        guard pieces.next(is: "projects"), let project = pieces.next(), !project.isEmpty, pieces.next(is: "databases"),
            let database = pieces.next(), !database.isEmpty, pieces.next(is: "documents"), let segments = plainSegments(&pieces)
        else { return nil }
        return (DatabaseName(project: String(utf8Bytes: project), database: String(utf8Bytes: database)), DocumentPath(segments: segments))
    }

    /// The path of the resource name `bytes` when it is plainly one of `database` (as `plain(resourceName:)`
    /// reads it, but compared with the database's ids rather than read into strings: what every write's
    /// document name costs).
    static func plain(resourceName bytes: UnsafeBufferPointer<UInt8>, in database: DatabaseName) -> DocumentPath? {
        var pieces = SlashPieces(bytes)
        guard pieces.next(is: "projects"), pieces.next(is: database.project), pieces.next(is: "databases"),
            pieces.next(is: database.database), pieces.next(is: "documents"), let segments = plainSegments(&pieces)
        else { return nil }
        return DocumentPath(segments: segments)
    }

    /// The rest of `pieces` as ids when each needs no closer look (not empty, at most 1,500 bytes, not
    /// starting with `.` or `_`) and there are at most `maximumDepth`; `nil` otherwise.
    private static func plainSegments(_ pieces: inout SlashPieces) -> [String]? {
        var segments: [String] = []
        while let piece = pieces.next() {
            guard let first = piece.first, piece.count <= 1500, first != UInt8(ascii: "."), first != UInt8(ascii: "_"),
                segments.count < maximumDepth
            else { return nil }
            if segments.isEmpty { segments.reserveCapacity(4) }
            segments.append(String(utf8Bytes: piece))
        }
        return segments
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

/// The pieces of a resource name's bytes between `/`s, in order, empty ones included, found by a pointer
/// loop (the collection algorithms on slices cost ~30 instructions a byte).
private struct SlashPieces {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var start: Int? = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The next piece; `nil` after the last.
    mutating func next() -> Slice<UnsafeBufferPointer<UInt8>>? {
        guard let from = start else { return nil }
        var end = from
        while end < bytes.count, bytes[end] != UInt8(ascii: "/") { end += 1 }
        start = end < bytes.count ? end + 1 : nil
        return bytes[from..<end]
    }

    /// Whether the next piece is `text`; moves past it either way.
    mutating func next(is text: StaticString) -> Bool {
        next()?.equals(text) ?? false
    }

    /// Whether the next piece is `text`; moves past it either way.
    mutating func next(is text: String) -> Bool {
        guard let piece = next() else { return false }
        var text = text
        return text.withUTF8 { piece.equals($0) }
    }
}
