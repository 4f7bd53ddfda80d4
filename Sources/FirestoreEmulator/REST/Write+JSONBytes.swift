import EmulatorCore
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
    /// The writes and transaction of a commit body, or nil to take the general way.
    static func commit(_ body: ByteBuffer, database: DatabaseName) -> (writes: [Write], transaction: [UInt8]?)? {
        body.withUnsafeReadableBytes { raw in
            JSONReader.reading(raw) { reader in
                var scanner = WriteScanner(reader: reader, database: database)
                let commit = scanner.commit()
                scanner.reader.skipWhitespace()
                guard let commit, scanner.reader.isAtEnd else { return nil }
                return commit
            }
        }
    }

    /// The fields of a `Document` body that has nothing else (UpdateDocument's, as clients send it), or nil
    /// to take the general way.
    static func documentFields(_ body: ByteBuffer) -> [String: FirestoreValue]? {
        body.withUnsafeReadableBytes { raw in
            JSONReader.reading(raw) { reader in
                var scanner = WriteScanner(reader: reader, database: DatabaseName(project: "", database: ""))
                var fields: [String: FirestoreValue]?
                let read = scanner.members { scanner, name in
                    guard name == "fields", fields == nil else { return false }
                    fields = scanner.fields(depth: 0)
                    return fields != nil
                }
                scanner.reader.skipWhitespace()
                guard read, let fields, scanner.reader.isAtEnd else { return nil }
                return fields
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

    /// Whether a commit body read here gives what the general way gives (or this reader gives up on it):
    /// the check the tests and the `rest-writes` fuzz target run.
    static func agreesWithTreePath(commit body: ByteBuffer, database: DatabaseName) -> Bool {
        guard let read = commit(body, database: database) else { return true }
        guard let json = try? JSONValue.parse(Data(body.readableBytesView)), let items = json["writes"]?.arrayValue,
            json.objectValue?.keys.allSatisfy({ $0 == "writes" || $0 == "transaction" }) == true
        else { return false }
        var general: [Write] = []
        for (index, item) in items.enumerated() {
            guard let write = try? Write(json: item, database: database, field: "writes[\(index)]") else { return false }
            general.append(write)
        }
        let transaction = json["transaction"].map { try? RESTCall.transactionID($0, field: "transaction") }
        return read.writes.map(\.canonical) == general.map(\.canonical) && transaction == read.transaction.map { $0 }
    }
}

/// The cursor `RESTWriteReading` reads with: each method reads one part of the shape it knows, or returns
/// nil (false) where the bytes leave it.
private struct WriteScanner {
    var reader: JSONReader
    let database: DatabaseName

    /// Nesting deeper than this is left to the general way.
    static let maximumDepth = 20

    /// `{"writes": [...], "transaction": "..."}`.
    mutating func commit() -> (writes: [Write], transaction: [UInt8]?)? {
        var writes: [Write]?
        var transaction: [UInt8]?
        guard members({ scanner, name in
            switch name {
            case "writes" where writes == nil:
                writes = scanner.array { scanner in scanner.write() }
                return writes != nil
            case "transaction" where transaction == nil:
                transaction = scanner.scalar().flatMap { try? RESTCall.transactionID($0, field: "transaction") }
                return transaction != nil
            default: return false
            }
        }), let writes, (try? FirestoreService.checkWriteCount(writes.count)) != nil
        else { return nil }
        return (writes, transaction)
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
                transforms = scanner.array { scanner in scanner.transform() }
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
        case "appendMissingElements": return elements().map { .appendMissingElements($0) }
        case "removeAllFromArray": return elements().map { .removeAllFromArray($0) }
        default: return nil
        }
    }

    /// An `ArrayValue`'s values: `{"values": [...]}`.
    private mutating func elements() -> [FirestoreValue]? {
        var values: [FirestoreValue]?
        guard members({ scanner, name in
            guard name == "values", values == nil else { return false }
            values = scanner.array { scanner in scanner.value(depth: 1) }
            return values != nil
        })
        else { return nil }
        return values ?? []
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
        }), let name, let path = try? Write.documentPath(name, in: database)
        else { return nil }
        return (path, fields ?? [:])
    }

    /// A `DocumentMask`: `{"fieldPaths": [...]}`.
    mutating func mask() -> [FieldPath]? {
        var paths: [String]?
        guard members({ scanner, name in
            guard name == "fieldPaths", paths == nil else { return false }
            paths = scanner.array { scanner in scanner.string() }
            return paths != nil
        }), let paths
        else { return nil }
        return try? FieldPath.fieldPaths(paths)
    }

    /// A `Precondition` of `{"exists": true|false}`.
    mutating func exists() -> Precondition? {
        var exists: Bool?
        guard members({ scanner, name in
            guard name == "exists", exists == nil, case .bool(let flag)? = scanner.scalar() else { return false }
            exists = flag
            return true
        }), let exists
        else { return nil }
        return .exists(exists)
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
        case "arrayValue":
            var values: [FirestoreValue]?
            guard members({ scanner, name in
                guard name == "values", values == nil else { return false }
                values = scanner.array { scanner in scanner.value(depth: depth + 1) }
                return values != nil
            })
            else { return nil }
            return .array(values ?? [])
        case "mapValue":
            var fields: [String: FirestoreValue]?
            guard members({ scanner, name in
                guard name == "fields", fields == nil else { return false }
                fields = scanner.fields(depth: depth + 1)
                return fields != nil
            })
            else { return nil }
            return .map(fields ?? [:])
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
