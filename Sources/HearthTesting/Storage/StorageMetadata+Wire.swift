import EmulatorCore
import Foundation

extension StorageMetadata {
    /// The metadata of a v0 response (`name` is the full path; `size` and generations are strings).
    init(json: JSONValue) {
        bucket = json["bucket"]?.stringValue ?? ""
        fullPath = json["name"]?.stringValue ?? ""
        size = json["size"]?.primitiveString.flatMap { Int($0) } ?? 0
        md5Hash = json["md5Hash"]?.stringValue
        generation = json["generation"]?.primitiveString.flatMap { Int64($0) } ?? 0
        metageneration = json["metageneration"]?.primitiveString.flatMap { Int64($0) } ?? 0
        timeCreated = json["timeCreated"]?.stringValue.flatMap(Self.date(from:))
        updated = json["updated"]?.stringValue.flatMap(Self.date(from:))
        downloadTokens = json["downloadTokens"]?.stringValue?.split(separator: ",").map(String.init) ?? []
        contentType = json["contentType"]?.stringValue
        cacheControl = json["cacheControl"]?.stringValue
        contentDisposition = json["contentDisposition"]?.stringValue
        customMetadata = json["metadata"]?.objectValue?.compactMapValues(\.primitiveString) ?? [:]
        received = json.objectValue ?? [:]
    }

    /// The writable fields as the SDKs send them with an upload of `fullPath`: the path as `name`, a
    /// `contentType` always (`application/octet-stream` when none is set).
    func uploadResource(fullPath: String) -> JSONValue {
        var json = changes
        json["name"] = .string(fullPath)
        json["contentType"] = .string(contentType ?? "application/octet-stream")
        return .object(json)
    }

    /// The body of a metadata update: the fields set, and `null` for each field and custom key the server
    /// sent that was removed since.
    var updateResource: JSONValue { .object(changes) }

    private var changes: [String: JSONValue] {
        var json: [String: JSONValue] = [:]
        let fields = [("contentType", contentType), ("cacheControl", cacheControl), ("contentDisposition", contentDisposition)]
        for (key, value) in fields {
            if let value {
                json[key] = .string(value)
            } else if received[key] != nil {
                json[key] = .null
            }
        }
        var custom = customMetadata.mapValues { JSONValue.string($0) }
        for key in (received["metadata"]?.objectValue ?? [:]).keys where customMetadata[key] == nil {
            custom[key] = .null
        }
        if !custom.isEmpty { json["metadata"] = .object(custom) }
        return json
    }

    /// An RFC 3339 time as the emulator writes it (with milliseconds), or without fractional seconds.
    private static func date(from text: String) -> Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().parse(text))
    }
}
