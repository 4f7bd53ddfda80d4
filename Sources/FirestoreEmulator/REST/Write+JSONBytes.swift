import EmulatorCore
import EmulatorHTTP
import Foundation
import NIOCore

/// A REST commit's body read straight from its bytes into `Write`s, for the shape clients send: writes that
/// update a document by name with its fields, optionally with an update mask, field transforms and an
/// `exists` precondition, and the transaction they commit.
/// Parsing the body into a `JSONValue` tree and converting that cost about as much as the commit itself
/// (a dictionary per JSON object, hashed member by member).
///
/// It gives up, returning nil, on anything else, and the general way (`JSONValue.parse`, then
/// `Write(json:database:field:)`) then runs for the same writes or error: other members (`database`, other
/// operations, the legacy `transform`), a member twice, `null` members, values in any form but their
/// canonical one (an `integerValue` as a number, `doubleValue` as a string, `bytesValue`, `geoPointValue`),
/// nesting deeper than 20, malformed JSON, and any conversion error. So it never has to reproduce an error.
/// `agreesWithTreePath` checks that both ways give the same writes.
enum RESTWriteReading {
    /// A commit body's request, or nil to take the general way.
    static func commit(_ body: ByteBuffer, database: DatabaseName) -> CommitRequest? {
        whole(body, database: database) { $0.commit(database: database) }
    }

    /// The fields of a `Document` body that has nothing else (UpdateDocument's, as clients send it), or nil
    /// to take the general way.
    static func documentFields(_ body: ByteBuffer) -> [String: FirestoreValue]? {
        whole(body, database: nil) { $0.object(withOnly: "fields") { $0.fields(depth: 0) } ?? nil }
    }

    /// What `read` reads of `body` when it reads all of it (white space aside).
    private static func whole<Result>(
        _ body: ByteBuffer, database: DatabaseName?, _ read: (inout WriteScanner) -> Result?
    ) -> Result? {
        body.withUnsafeReadableBytes { raw in
            JSONReader.reading(raw) { reader in
                var scanner = WriteScanner(reader: reader, database: database)
                let result = read(&scanner)
                scanner.reader.skipWhitespace()
                return scanner.reader.isAtEnd ? result : nil
            }
        }
    }

    /// Whether a document body read here gives the fields the general way gives (or this reader gives up on
    /// it).
    static func agreesWithTreePath(document body: ByteBuffer) -> Bool {
        guard let read = documentFields(body) else { return true }
        guard let json = try? JSONValue.parse(Data(body.readableBytesView)), json.objectValue?.count == 1,
            let general = try? FirestoreValue.fields(json["fields"] ?? .null)
        else { return false }
        return FirestoreValue.map(read).canonical == FirestoreValue.map(general).canonical
    }

    /// Whether a commit body read here gives the request the general way (`FirestoreREST.commitRequest`)
    /// gives (or this reader gives up on it): the check the tests and the `rest-writes` fuzz target run.
    static func agreesWithTreePath(commit body: ByteBuffer, database: DatabaseName) -> Bool {
        guard let read = commit(body, database: database) else { return true }
        let context = CallContext(credential: Credential(authorizationHeader: nil), now: Timestamp(seconds: 0, nanos: 0))
        guard let json = try? JSONValue.parse(Data(body.readableBytesView)),
            let general = try? FirestoreREST.commitRequest(database, RESTCall(context: context, query: FormFields(parsing: ""), body: json))
        else { return false }
        return read.writes.map(\.canonical) == general.writes.map(\.canonical) && read.transaction == general.transaction
    }
}

/// The cursor `RESTWriteReading` reads with: each method reads one part of the shape it knows, or returns
/// nil (false) where the bytes leave it.
private struct WriteScanner {
    var reader: JSONReader
    /// The database the documents named must be in (none for a body that names none).
    let database: DatabaseName?

    /// Nesting deeper than this is left to the general way.
    static let maximumDepth = 20

    /// `{"writes": [...], "transaction": "..."}`.
    mutating func commit(database: DatabaseName) -> CommitRequest? {
        var writes: [Write]?
        var transaction: [UInt8]?
        guard members({ scanner, name in
            switch name {
            case "writes" where writes == nil:
                writes = scanner.array { $0.write() }
                return writes != nil
            case "transaction" where transaction == nil:
                transaction = scanner.scalar().flatMap { try? RESTCall.transactionID($0, field: "transaction") }
                return transaction != nil
            default: return false
            }
        }), let writes, (try? FirestoreService.checkWriteCount(writes.count)) != nil
        else { return nil }
        return CommitRequest(database: database, writes: writes, transaction: transaction)
    }

    /// `{"update": {"name", "fields"}, "updateMask": {"fieldPaths"}, "updateTransforms": [...],
    /// "currentDocument": {"exists"}}`.
    mutating func write() -> Write? {
        var document: (path: DocumentPath, fields: [String: FirestoreValue])?
        var mask: [FieldPath]?
        var transforms: [FieldTransform]?
        var precondition: Precondition?
        guard members({ scanner, name in
            switch name {
            case "update" where document == nil:
                document = scanner.document()
                return document != nil
            case "updateMask" where mask == nil:
                mask = scanner.mask()
                return mask != nil
            case "updateTransforms" where transforms == nil:
                transforms = scanner.array { $0.transform() }
                return transforms != nil
            case "currentDocument" where precondition == nil:
                precondition = scanner.exists()
                return precondition != nil
            default: return false
            }
        }), let document
        else { return nil }
        return Write(
            path: document.path, operation: .update(fields: document.fields), updateMask: mask, transforms: transforms ?? [],
            precondition: precondition)
    }

    /// A `FieldTransform`: `fieldPath` and one transformation.
    mutating func transform() -> FieldTransform? {
        var path: FieldPath?
        var kind: FieldTransform.Kind?
        guard members({ scanner, name in
            if name == "fieldPath" {
                guard path == nil, let text = scanner.string() else { return false }
                path = try? FieldPath(validating: text)
                return path != nil
            }
            guard kind == nil else { return false }
            kind = scanner.transformKind(name)
            return kind != nil
        }), let path, let kind
        else { return nil }
        return FieldTransform(field: path, kind: kind)
    }

    /// The transformation of member `name`.
    private mutating func transformKind(_ name: String) -> FieldTransform.Kind? {
        switch name {
        case "setToServerValue": return string() == "REQUEST_TIME" ? .serverTimestamp : nil
        case "increment": return value(depth: 0).map { .increment($0) }
        case "maximum": return value(depth: 0).map { .maximum($0) }
        case "minimum": return value(depth: 0).map { .minimum($0) }
        case "appendMissingElements": return elements(depth: 1).map { .appendMissingElements($0) }
        case "removeAllFromArray": return elements(depth: 1).map { .removeAllFromArray($0) }
        default: return nil
        }
    }

    /// An `ArrayValue`'s values (`{"values": [...]}`, `{}` for none), each `depth` deep.
    private mutating func elements(depth: Int) -> [FirestoreValue]? {
        object(withOnly: "values") { $0.array { $0.value(depth: depth) } }.map { $0 ?? [] }
    }

    /// A `Document`'s `name` and `fields`.
    mutating func document() -> (path: DocumentPath, fields: [String: FirestoreValue])? {
        var name: String?
        var fields: [String: FirestoreValue]?
        guard members({ scanner, member in
            switch member {
            case "name" where name == nil:
                name = scanner.string()
                return name != nil
            case "fields" where fields == nil:
                fields = scanner.fields(depth: 0)
                return fields != nil
            default: return false
            }
        }), let name, let database, let path = try? Write.documentPath(name, in: database)
        else { return nil }
        return (path, fields ?? [:])
    }

    /// A `DocumentMask`: `{"fieldPaths": [...]}`.
    mutating func mask() -> [FieldPath]? {
        guard let paths = object(withOnly: "fieldPaths", { $0.array { $0.string() } }) ?? nil else { return nil }
        return try? FieldPath.fieldPaths(paths)
    }

    /// A `Precondition` of `{"exists": true|false}`.
    mutating func exists() -> Precondition? {
        let exists = object(withOnly: "exists") { scanner -> Bool? in
            guard case .bool(let flag)? = scanner.scalar() else { return nil }
            return flag
        }
        return (exists ?? nil).map { .exists($0) }
    }

    /// A `fields` map: each name once.
    mutating func fields(depth: Int) -> [String: FirestoreValue]? {
        var fields: [String: FirestoreValue] = [:]
        guard members({ scanner, name in
            guard fields[name] == nil, let value = scanner.value(depth: depth) else { return false }
            fields[name] = value
            return true
        })
        else { return nil }
        return fields
    }

    /// A `Value`: an object with exactly one member, in the member's canonical form.
    mutating func value(depth: Int) -> FirestoreValue? {
        guard depth <= Self.maximumDepth else { return nil }
        var value: FirestoreValue?
        guard members({ scanner, kind in
            guard value == nil else { return false }
            value = scanner.payload(kind, depth: depth)
            return value != nil
        })
        else { return nil }
        return value
    }

    /// The payload of a `Value`'s member `kind`.
    private mutating func payload(_ kind: String, depth: Int) -> FirestoreValue? {
        switch kind {
        case "arrayValue": return elements(depth: depth + 1).map { .array($0) }
        case "mapValue": return object(withOnly: "fields") { $0.fields(depth: depth + 1) }.map { .map($0 ?? [:]) }
        default:
            switch (kind, scalar()) {
            case ("nullValue", .null?): return .null
            case ("booleanValue", .bool(let flag)?): return .boolean(flag)
            case ("integerValue", .string(let text)?): return Int64(text).map { .integer($0) }
            case ("doubleValue", .int(let number)?): return .double(Double(number))
            case ("doubleValue", .double(let number)?): return .double(number)
            case ("stringValue", .string(let text)?): return .string(text)
            case ("referenceValue", .string(let text)?): return .reference(text)
            case ("timestampValue", .string(let text)?):
                // Stored at microseconds, extra digits rounded down, as the general way stores them.
                return FirestoreValue.parseTimestamp(text).map { .timestamp(seconds: $0.0, nanos: $0.1 - $0.1 % 1000) }
            default: return nil
            }
        }
    }

    /// A string.
    mutating func string() -> String? {
        guard case .string(let text)? = scalar() else { return nil }
        return text
    }

    /// A string, number, `true`, `false` or `null`, read as `JSONValue.parse` reads it; nil for a container.
    mutating func scalar() -> JSONValue? {
        reader.skipWhitespace()
        guard let next = reader.next, next != UInt8(ascii: "{"), next != UInt8(ascii: "[") else { return nil }
        return try? reader.readValue(depth: 0)
    }

    /// An object, `member` reading each member's value after its name; false when the bytes are not an object
    /// or `member` gives up.
    mutating func members(_ member: (inout WriteScanner, String) -> Bool) -> Bool {
        guard reader.take(UInt8(ascii: "{")) else { return false }
        if reader.take(UInt8(ascii: "}")) { return true }
        repeat {
            reader.skipWhitespace()
            guard reader.next == UInt8(ascii: "\""), let name = try? reader.readString(), reader.take(UInt8(ascii: ":")),
                member(&self, name)
            else { return false }
        } while reader.take(UInt8(ascii: ","))
        return reader.take(UInt8(ascii: "}"))
    }

    /// An object whose one member, if any, is `name`, read with `read`: nil where the bytes leave that shape,
    /// `.some(nil)` for `{}`.
    mutating func object<Member>(withOnly name: String, _ read: (inout WriteScanner) -> Member?) -> Member?? {
        var member: Member?
        guard members({ scanner, key in
            guard key == name, member == nil else { return false }
            member = read(&scanner)
            return member != nil
        })
        else { return nil }
        return .some(member)
    }

    /// An array of what `element` reads.
    mutating func array<Element>(_ element: (inout WriteScanner) -> Element?) -> [Element]? {
        guard reader.take(UInt8(ascii: "[")) else { return nil }
        var elements: [Element] = []
        if reader.take(UInt8(ascii: "]")) { return elements }
        repeat {
            guard let next = element(&self) else { return nil }
            elements.append(next)
        } while reader.take(UInt8(ascii: ","))
        return reader.take(UInt8(ascii: "]")) ? elements : nil
    }
}
