import EmulatorCore
import Foundation
import FirestoreWire
import SwiftProtobuf

/// Documents as the entity records of a Firestore (managed) export, both ways, as Google's Firestore emulator
/// and production write them: the key is the app (`dev~<project>`; production writes other `<partition>~`
/// prefixes), the database id outside `(default)`, and the path as (collection id, document id) elements; each
/// field is a property (array elements are `multiple` properties under one name); maps are nested records in a
/// string value. The `meaning` of a property tells the types that share a value member apart.
enum EntityCodec {
    /// Property meanings Firestore uses.
    enum Meaning {
        static let timestamp: Int32 = 7
        static let geoPoint: Int32 = 9
        static let blob: Int32 = 14
        static let text: Int32 = 15
        static let byteString: Int32 = 16
        static let map: Int32 = 19
        static let emptyArray: Int32 = 24
        static let vector: Int32 = 31
    }

    /// A record that is not a Firestore document.
    struct Malformed: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    /// The app of `project`'s keys, as the Firestore emulator writes it.
    static func app(of project: String) -> Data { Data("dev~\(project)".utf8) }

    // MARK: Encoding

    /// The record of `document` in `database`.
    static func encode(_ document: Document, in database: DatabaseName) throws -> [UInt8] {
        var entity = StorageOnestoreV3_EntityProto()
        entity.key = key(of: document.path, in: database)
        entity.entityGroup = path(of: DocumentPath(segments: Array(document.path.segments.prefix(2))))
        add(document.fields, to: &entity)
        return try entity.serializedBytes()
    }

    private static func key(of path: DocumentPath, in database: DatabaseName) -> StorageOnestoreV3_Reference {
        var key = StorageOnestoreV3_Reference()
        key.app = app(of: database.project)
        key.path = self.path(of: path)
        if database.database != DatabaseName.defaultDatabase { key.databaseID = Data(database.database.utf8) }
        return key
    }

    private static func path(of path: DocumentPath) -> StorageOnestoreV3_Path {
        var result = StorageOnestoreV3_Path()
        result.element = elements(of: path).map { pair in
            var element = StorageOnestoreV3_Path.Element()
            element.type = pair.type
            if let id = pair.id { element.id = id } else { element.name = pair.name }
            return element
        }
        return result
    }

    /// The (collection id, document id) pairs of `path`, each document id as a number when it is a numeric id
    /// (`__id42__`), which keys hold as an integer id.
    private static func elements(of path: DocumentPath) -> [(type: Data, id: Int64?, name: Data)] {
        stride(from: 0, to: path.segments.count - 1, by: 2).map { index in
            let id = path.segments[index + 1]
            return (Data(path.segments[index].utf8), DocumentPath.numericDigits(id).flatMap { Int64($0) }, Data(id.utf8))
        }
    }

    /// The fields as properties, in name order; an empty array is an indexed property, as Firestore writes it.
    private static func add(_ fields: [String: FirestoreValue], to entity: inout StorageOnestoreV3_EntityProto) {
        for name in fields.keys.sorted() {
            let value = fields[name]!
            let nameData = Data(name.utf8)
            switch value {
            case .array(let elements) where elements.isEmpty:
                var property = StorageOnestoreV3_Property()
                property.name = nameData
                property.meaning = Meaning.emptyArray
                property.multiple = false
                property.value = StorageOnestoreV3_PropertyValue()
                entity.property.append(property)
            case .array(let elements):
                for element in elements { entity.rawProperty.append(property(nameData, element, multiple: true)) }
            case .map(let map) where FirestoreValue.isVector(map):
                let numbers = map["value"].flatMap { value -> [FirestoreValue]? in
                    if case .array(let numbers) = value { return numbers } else { return nil }
                } ?? []
                for number in numbers {
                    var element = property(nameData, number, multiple: true)
                    element.meaning = Meaning.vector
                    entity.rawProperty.append(element)
                }
            default:
                entity.rawProperty.append(property(nameData, value, multiple: false))
            }
        }
    }

    private static func property(_ name: Data, _ value: FirestoreValue, multiple: Bool) -> StorageOnestoreV3_Property {
        var property = StorageOnestoreV3_Property()
        property.name = name
        property.multiple = multiple
        var result = StorageOnestoreV3_PropertyValue()
        switch value {
        case .null: break
        case .boolean(let flag): result.booleanValue = flag
        case .integer(let number): result.int64Value = number
        case .double(let number): result.doubleValue = number
        case .timestamp(let seconds, let nanos):
            property.meaning = Meaning.timestamp
            result.int64Value = seconds &* 1_000_000 &+ Int64(nanos / 1000)
        case .string(let text): result.stringValue = Data(text.utf8)
        case .bytes(let bytes):
            property.meaning = Meaning.blob
            result.stringValue = Data(bytes)
        case .reference(let name): result.referenceValue = reference(name)
        case .geoPoint(let latitude, let longitude):
            property.meaning = Meaning.geoPoint
            result.pointValue.x = latitude
            result.pointValue.y = longitude
        case .array(let elements):
            // Writes refuse arrays directly in arrays (`DocumentLimits`); one would be kept as a map of its elements.
            return self.property(
                name, .map(Dictionary(uniqueKeysWithValues: elements.enumerated().map { (String($0.offset), $0.element) })),
                multiple: multiple)
        case .map(let fields):
            var nested = StorageOnestoreV3_EntityProto()
            nested.key = StorageOnestoreV3_Reference()
            nested.key.app = Data()
            nested.key.path = StorageOnestoreV3_Path()
            nested.entityGroup = StorageOnestoreV3_Path()
            add(fields, to: &nested)
            property.meaning = Meaning.map
            result.stringValue = (try? nested.serializedData()) ?? Data()
        }
        property.value = result
        return property
    }

    /// A reference value to the document named `name` (`projects/p/databases/d/documents/...`).
    private static func reference(_ name: String) -> StorageOnestoreV3_PropertyValue.ReferenceValue {
        var reference = StorageOnestoreV3_PropertyValue.ReferenceValue()
        guard let (database, path) = try? DocumentPath.parse(resourceName: name) else { return reference }
        reference.app = app(of: database.project)
        if database.database != DatabaseName.defaultDatabase { reference.databaseID = Data(database.database.utf8) }
        reference.pathElement = elements(of: path).map { pair in
            var element = StorageOnestoreV3_PropertyValue.ReferenceValue.PathElement()
            element.type = pair.type
            if let id = pair.id { element.id = id } else { element.name = pair.name }
            return element
        }
        return reference
    }

    // MARK: Decoding

    /// The database and document of a record, in `project` whatever project wrote it (an export of a
    /// production project imports into the emulator's; references to that project's documents follow).
    static func decode(_ record: [UInt8], project: String) throws -> (DatabaseName, DocumentPath, [String: FirestoreValue]) {
        let entity: StorageOnestoreV3_EntityProto
        do {
            entity = try StorageOnestoreV3_EntityProto(serializedBytes: record)
        } catch {
            throw Malformed(reason: "not an entity record (\(error))")
        }
        guard entity.hasKey, !entity.key.path.element.isEmpty else { throw Malformed(reason: "the record has no key path") }
        let database = try self.database(entity.key.hasDatabaseID ? entity.key.databaseID : nil, project: project)
        let path = try self.path(entity.key.path.element.map { ($0.type, $0.hasName ? $0.name : nil, $0.id) })
        let fields = try fields(of: entity, project: project)
        try check(Document(path: path, fields: fields, createTime: Timestamp(seconds: 0, nanos: 0), updateTime: Timestamp(seconds: 0, nanos: 0)), in: database)
        return (database, path, fields)
    }

    /// Refuses what a write would refuse (ids, nesting, sizes, a database id with `/`): an import holds only
    /// documents clients could have written.
    private static func check(_ document: Document, in database: DatabaseName) throws {
        guard !database.database.contains("/") else { throw Malformed(reason: "the database id '\(database.database)' holds '/'") }
        do throws(FirestoreError) {
            for segment in document.path.segments { try DocumentPath.validateID(segment) }
            try DocumentLimits.validate(document, in: database)
        } catch {
            throw Malformed(reason: error.message)
        }
    }

    /// The database a key or reference names (`(default)` when it names none).
    private static func database(_ id: Data?, project: String) throws -> DatabaseName {
        let id = try id.map { try text($0, "database id") } ?? ""
        return DatabaseName(project: project, database: id.isEmpty ? DatabaseName.defaultDatabase : id)
    }

    /// The document path of (collection id, document name or numeric id) elements.
    private static func path(_ elements: [(type: Data, name: Data?, id: Int64)]) throws -> DocumentPath {
        var segments: [String] = []
        for element in elements {
            segments.append(try text(element.type, "collection id"))
            segments.append(try element.name.map { try text($0, "document id") } ?? "__id\(element.id)__")
        }
        return DocumentPath(segments: segments)
    }

    private static func text(_ data: Data, _ what: String) throws -> String {
        guard let text = String(data: data, encoding: .utf8) else { throw Malformed(reason: "the \(what) is not UTF-8") }
        return text
    }

    private static func fields(of entity: StorageOnestoreV3_EntityProto, project: String) throws -> [String: FirestoreValue] {
        var fields: [String: FirestoreValue] = [:]
        var vectors: Set<String> = []
        for property in entity.property + entity.rawProperty {
            let name = try text(property.name, "field name")
            if property.meaning == Meaning.emptyArray {
                fields[name] = .array([])
                continue
            }
            let value = try self.value(of: property, project: project)
            guard property.multiple else {
                fields[name] = value
                continue
            }
            if property.meaning == Meaning.vector { vectors.insert(name) }
            if case .array(var elements)? = fields[name] {
                elements.append(value)
                fields[name] = .array(elements)
            } else {
                fields[name] = .array([value])
            }
        }
        for name in vectors {
            guard let numbers = fields[name] else { continue }
            fields[name] = .map(["__type__": .string("__vector__"), "value": numbers])
        }
        return fields
    }

    private static func value(of property: StorageOnestoreV3_Property, project: String) throws -> FirestoreValue {
        let value = property.value
        switch property.meaning {
        case Meaning.map:
            let nested: StorageOnestoreV3_EntityProto
            do {
                nested = try StorageOnestoreV3_EntityProto(serializedBytes: value.stringValue)
            } catch {
                throw Malformed(reason: "a map value is not an entity record (\(error))")
            }
            return .map(try fields(of: nested, project: project))
        case Meaning.timestamp:
            let (seconds, micros) = value.int64Value.quotientAndRemainder(dividingBy: 1_000_000)
            return micros < 0
                ? .timestamp(seconds: seconds - 1, nanos: Int32(micros + 1_000_000) * 1000)
                : .timestamp(seconds: seconds, nanos: Int32(micros) * 1000)
        case Meaning.geoPoint:
            return .geoPoint(latitude: value.pointValue.x, longitude: value.pointValue.y)
        case Meaning.blob, Meaning.byteString:
            return .bytes([UInt8](value.stringValue))
        default:
            break
        }
        if value.hasInt64Value { return .integer(value.int64Value) }
        if value.hasBooleanValue { return .boolean(value.booleanValue) }
        if value.hasDoubleValue { return .double(value.doubleValue) }
        if value.hasStringValue { return .string(try text(value.stringValue, "string value")) }
        if value.hasPointValue { return .geoPoint(latitude: value.pointValue.x, longitude: value.pointValue.y) }
        if value.hasReferenceValue { return .reference(try referenceName(value.referenceValue, project: project)) }
        return .null
    }

    private static func referenceName(_ reference: StorageOnestoreV3_PropertyValue.ReferenceValue, project: String) throws -> String {
        let database = try self.database(reference.hasDatabaseID ? reference.databaseID : nil, project: project)
        return try path(reference.pathElement.map { ($0.type, $0.hasName ? $0.name : nil, $0.id) }).name(in: database)
    }
}
