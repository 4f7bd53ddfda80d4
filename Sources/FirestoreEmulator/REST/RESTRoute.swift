import EmulatorCore
import Foundation
import HTTPTypes

/// A Firestore REST request's target, parsed from its method and path the way production's URL templates
/// bind them (`/v1/{name=projects/*/databases/*/documents/*/**}`, `/v1/{database}/documents:commit`, ...).
enum RESTRoute: Equatable {
    /// `GET /v1/{name}`: GetDocument.
    case getDocument(DatabaseName, DocumentPath)
    /// `GET /v1/{parent}/{collectionId}`: ListDocuments.
    case listDocuments(DatabaseName, parent: DocumentPath, collectionID: String)
    /// `POST /v1/{parent}/{collectionId}`: CreateDocument.
    case createDocument(DatabaseName, parent: DocumentPath, collectionID: String)
    /// `PATCH /v1/{document.name}`: UpdateDocument.
    case updateDocument(DatabaseName, DocumentPath)
    /// `DELETE /v1/{name}`: DeleteDocument.
    case deleteDocument(DatabaseName, DocumentPath)
    /// `POST /v1/{database}/documents:<method>`: BatchGet, BeginTransaction, Commit, Rollback, BatchWrite.
    case database(DatabaseName, DatabaseMethod)
    /// `POST /v1/{parent}:<method>`: RunQuery, RunAggregationQuery, PartitionQuery, ListCollectionIds.
    case parent(DatabaseName, DocumentPath, ParentMethod)
    /// `GET /v1/projects/{p}/databases`: the Firestore Admin API's ListDatabases.
    case listDatabases(project: String)
    /// `DELETE /emulator/v1/projects/{p}/databases/{d}/documents` (emulator only).
    case clear(DatabaseName)
    /// `PUT /emulator/v1/projects/{p}:securityRules` (emulator only).
    case securityRules(project: String)
    /// `GET /emulator/v1/projects/{p}:ruleCoverage[.html]` (emulator only).
    case ruleCoverage(project: String, html: Bool)
    /// `POST /emulator/v1/projects/{p}:export` (emulator only).
    case export(project: String)
    /// `GET /emulator/v1/projects/{p}:missingIndexes` (emulator only).
    case missingIndexes(project: String)

    /// Methods on the documents root.
    enum DatabaseMethod: String, CaseIterable {
        case batchGet, beginTransaction, commit, rollback, batchWrite, listen, write
    }

    /// Methods on a query parent (the documents root or a document).
    enum ParentMethod: String, CaseIterable {
        case runQuery, runAggregationQuery, partitionQuery, listCollectionIds
    }

    /// The route of `method` on `path` (the raw, still percent-encoded path), `nil` if nothing is served
    /// there; malformed names are production's INVALID_ARGUMENT.
    init?(method: HTTPRequest.Method, path: String) throws(FirestoreError) {
        if let (database, documentPath, custom) = Self.plainV1(method, path) {
            self = try Self.route(method, database, documentPath, custom: custom) { documentPath.name(in: database) }
            return
        }
        guard let route = try Self.generally(method: method, path: path) else { return nil }
        self = route
    }

    /// The route as the general reading finds it: every path, segment by segment (`plainV1` takes the
    /// common ones faster, and must agree with it).
    static func generally(method: HTTPRequest.Method, path: String) throws(FirestoreError) -> RESTRoute? {
        let (segments, decoded) = Self.segments(of: path)
        switch segments.first {
        case "v1": return try Self.v1(method, Array(segments.dropFirst()), decoded: decoded)
        case "emulator":
            guard segments.count >= 2, segments[1] == "v1" else { return nil }
            return try Self.emulator(method, Array(segments.dropFirst(2)))
        default: return nil
        }
    }

    /// The database, document path and custom method of a plain `/v1/projects/{p}/databases/{d}/documents…`
    /// path, read on its bytes: no percent escape, a resource name `DocumentPath.plain` takes, and a custom
    /// method only as a known `:name` at the end of a POST's path. `nil` for any other path, which
    /// `generally` reads.
    private static func plainV1(_ method: HTTPRequest.Method, _ path: String) -> (DatabaseName, DocumentPath, String?)? {
        var path = path
        return path.withUTF8 { bytes -> (DatabaseName, DocumentPath, String?)? in
            let prefix = "/v1/".utf8
            guard bytes.count > prefix.count, bytes.starts(with: prefix), !bytes.contains(UInt8(ascii: "%")) else { return nil }
            var end = bytes.count
            var custom: String?
            if method == .post, let colon = bytes.lastIndex(of: UInt8(ascii: ":")), !bytes[colon...].contains(UInt8(ascii: "/")) {
                let name = String(utf8Bytes: bytes[(colon + 1)...])
                if DatabaseMethod(rawValue: name) != nil || ParentMethod(rawValue: name) != nil {
                    custom = name
                    end = colon
                }
            }
            let name = UnsafeBufferPointer(rebasing: bytes[prefix.count..<end])
            guard let (database, documentPath) = DocumentPath.plain(resourceName: name) else { return nil }
            return (database, documentPath, custom)
        }
    }

    /// The segments after the path's first `/`, each percent-decoded (kept as it is when it does not
    /// decode), and whether any had an escape.
    static func segments(of path: String) -> (segments: [String], decoded: Bool) {
        var segments: [String] = []
        var decoded = false
        var beforeFirstSlash = true
        path.forEachPiece(separatedBy: UInt8(ascii: "/")) { piece in
            if beforeFirstSlash {
                beforeFirstSlash = false
                return
            }
            let raw = String(utf8Bytes: piece)
            guard piece.contains(UInt8(ascii: "%")) else { return segments.append(raw) }
            decoded = true
            segments.append(raw.percentDecoded ?? raw)
        }
        return (segments, decoded)
    }

    /// The route of a `/v1/` path's `segments`; `decoded`: whether any had a percent escape (a decoded
    /// `%2F` separates segments).
    private static func v1(_ method: HTTPRequest.Method, _ segments: [String], decoded: Bool) throws(FirestoreError) -> RESTRoute {
        if method == .get, segments.count == 3, segments[0] == "projects", segments[2] == "databases" {
            return .listDatabases(project: segments[1])
        }
        guard segments.count >= 5, segments[0] == "projects", segments[2] == "databases" else {
            throw FirestoreError(.notFound, "Not found: /v1/\(segments.joined(separator: "/"))")
        }
        var rest = Array(segments[4...])
        // A custom method is the last segment's `:name` suffix (ids may contain colons, so only known names).
        var custom: String?
        if method == .post, let last = rest.last, let colon = last.lastIndex(of: ":") {
            let name = String(last[last.index(after: colon)...])
            if DatabaseMethod(rawValue: name) != nil || ParentMethod(rawValue: name) != nil {
                custom = name
                rest[rest.count - 1] = String(last[..<colon])
            }
        }
        guard rest[0] == "documents" else {
            throw FirestoreError(.notFound, "Not found: /v1/\(segments.joined(separator: "/"))")
        }
        var parts = Array(segments[0..<4]) + rest
        if decoded, parts.contains(where: { $0.utf8.contains(UInt8(ascii: "/")) }) {
            // A decoded `%2F` separates segments, as it does in the resource name the path spells.
            parts = parts.joined(separator: "/").pieces(separatedBy: UInt8(ascii: "/"))
        }
        // The name is spelled out only for a message.
        let name = { parts.joined(separator: "/") }
        let (database, path) = try DocumentPath.parse(resourceParts: parts, name: name())
        return try route(method, database, path, custom: custom, name: name)
    }

    /// The route of `method` on the resource `path` of `database`, with the custom method `custom` if any;
    /// `name` spells the resource name for a message.
    private static func route(
        _ method: HTTPRequest.Method, _ database: DatabaseName, _ path: DocumentPath, custom: String?, name: () -> String
    ) throws(FirestoreError) -> RESTRoute {
        if let custom {
            if let databaseMethod = DatabaseMethod(rawValue: custom) {
                guard path.segments.isEmpty else { throw FirestoreError(.notFound, "Not found: \(name()):\(custom)") }
                return .database(database, databaseMethod)
            }
            guard path.isParent, let parentMethod = ParentMethod(rawValue: custom) else { throw .invalidParent(name()) }
            return .parent(database, path, parentMethod)
        }
        switch method {
        case .get where path.isDocument: return .getDocument(database, path)
        case .get where path.isCollection: return .listDocuments(database, parent: path.parent, collectionID: path.lastSegment!)
        case .post where path.isCollection:
            return .createDocument(database, parent: path.parent, collectionID: path.lastSegment!)
        case .patch where path.isDocument: return .updateDocument(database, path)
        case .delete where path.isDocument: return .deleteDocument(database, path)
        case .get, .patch, .delete, .post:
            if path.isCollection || path.segments.isEmpty {
                throw FirestoreError(.invalidArgument, "Document name \"\(name())\" has an odd number of path segments: it names a collection, not a document.")
            }
            throw FirestoreError(.invalidArgument, "Collection name \"\(name())\" names a document, not a collection.")
        default:
            throw FirestoreError(.notFound, "Not found: \(method) /v1/\(name())")
        }
    }

    private static func emulator(_ method: HTTPRequest.Method, _ segments: [String]) throws(FirestoreError) -> RESTRoute? {
        guard segments.count >= 2, segments[0] == "projects" else { return nil }
        if segments.count == 2 {
            let parts = segments[1].split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { return nil }
            switch (method, parts[1]) {
            case (.put, "securityRules"): return .securityRules(project: parts[0])
            case (.get, "ruleCoverage"): return .ruleCoverage(project: parts[0], html: false)
            case (.get, "ruleCoverage.html"): return .ruleCoverage(project: parts[0], html: true)
            case (.post, "export"): return .export(project: parts[0])
            case (.get, "missingIndexes"): return .missingIndexes(project: parts[0])
            default: return nil
            }
        }
        guard method == .delete, segments.count == 5, segments[2] == "databases", segments[4] == "documents" else { return nil }
        return .clear(DatabaseName(project: segments[1], database: segments[3]))
    }
}
