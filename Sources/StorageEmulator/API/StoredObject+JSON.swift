import EmulatorCore
import Foundation

extension StoredObject {
    /// The Firebase v0 metadata (`OutgoingFirebaseMetadata` of the official emulator, what the web, iOS and
    /// Android SDKs read): numbers as strings, times with milliseconds, tokens comma-joined.
    var firebaseJSON: JSONValue {
        var json: [String: JSONValue] = [
            "name": .string(name), "bucket": .string(bucket), "generation": .string(String(generation)),
            "metageneration": .string(String(metageneration)), "contentType": .string(contentType ?? "application/octet-stream"),
            "timeCreated": .string(timeCreated.iso8601WithMilliseconds), "updated": .string(updated.iso8601WithMilliseconds),
            "storageClass": .string(storageClass), "size": .string(String(size)), "md5Hash": .string(md5Hash),
            "crc32c": .string(crc32c), "etag": .string(etag), "downloadTokens": .string(downloadTokens.joined(separator: ",")),
            "contentEncoding": .string(contentEncoding ?? "identity"),
            "contentDisposition": .string(contentDisposition ?? "inline"),
        ]
        if let contentLanguage { json["contentLanguage"] = .string(contentLanguage) }
        if let cacheControl { json["cacheControl"] = .string(cacheControl) }
        if !customMetadata.isEmpty { json["metadata"] = .object(customMetadata.mapValues { .string($0) }) }
        return .object(json)
    }

    /// The GCS JSON API object resource (`storage#object`), links based at `base` (`http://host:port`).
    func cloudJSON(base: String) -> JSONValue {
        let encoded = StorageAPI.percentEncoded(name)
        var json: [String: JSONValue] = [
            "kind": "storage#object", "id": .string("\(bucket)/\(name)/\(generation)"),
            "selfLink": .string("\(base)/storage/v1/b/\(StorageAPI.percentEncoded(bucket))/o/\(encoded)"),
            "mediaLink": .string(
                "\(base)/download/storage/v1/b/\(StorageAPI.percentEncoded(bucket))/o/\(encoded)?generation=\(generation)&alt=media"),
            "name": .string(name), "bucket": .string(bucket), "generation": .string(String(generation)),
            "metageneration": .string(String(metageneration)), "contentType": .string(contentType ?? "application/octet-stream"),
            "storageClass": .string(storageClass), "size": .string(String(size)), "md5Hash": .string(md5Hash),
            "crc32c": .string(crc32c), "etag": .string(etag), "timeCreated": .string(timeCreated.iso8601WithMilliseconds),
            "updated": .string(updated.iso8601WithMilliseconds),
            "timeStorageClassUpdated": .string(timeCreated.iso8601WithMilliseconds),
        ]
        for (key, value) in [
            ("contentEncoding", contentEncoding), ("contentDisposition", contentDisposition),
            ("contentLanguage", contentLanguage), ("cacheControl", cacheControl),
        ] {
            if let value { json[key] = .string(value) }
        }
        if let customTime { json["customTime"] = .string(customTime.iso8601WithMilliseconds) }
        if let componentCount { json["componentCount"] = .int(Int64(componentCount)) }
        var metadata = customMetadata.mapValues { JSONValue.string($0) }
        if !downloadTokens.isEmpty { metadata["firebaseStorageDownloadTokens"] = .string(downloadTokens.joined(separator: ",")) }
        if !metadata.isEmpty { json["metadata"] = .object(metadata) }
        return .object(json)
    }
}

extension ObjectStore.Bucket {
    /// The GCS JSON API bucket resource (`storage#bucket`).
    func cloudJSON(base: String) -> JSONValue {
        [
            "kind": "storage#bucket", "id": .string(name), "name": .string(name),
            "selfLink": .string("\(base)/storage/v1/b/\(StorageAPI.percentEncoded(name))"), "projectNumber": "0",
            "metageneration": "1", "location": "US", "storageClass": "STANDARD", "etag": "CAE=",
            "timeCreated": .string(timeCreated.iso8601WithMilliseconds), "updated": .string(updated.iso8601WithMilliseconds),
            "locationType": "multi-region",
        ]
    }
}
