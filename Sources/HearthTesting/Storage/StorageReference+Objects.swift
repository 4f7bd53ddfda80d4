import EmulatorCore
import Foundation
import NIOHTTP1

extension StorageReference {
    /// The object's bytes (`alt=media`), asked for with `Range: bytes=0-{maxSize}` as the web SDK's
    /// `getBytes` does. An object larger than `maxSize` (100 MiB unless told) is a `ClientError` with code
    /// `.failedPrecondition`.
    public func data(maxSize: Int = 100 << 20) async throws -> Data {
        let response = try await client.send(.GET, "\(objectURL)?alt=media", headers: [("Range", "bytes=0-\(maxSize)")])
        // A range from byte 0 is unsatisfiable only for an empty object.
        if response.status == 416 { return Data() }
        let body = try response.checked().body
        guard body.count <= maxSize else {
            throw ClientError(.failedPrecondition, message: "\(self) is larger than maxSize (\(maxSize) bytes).")
        }
        return body
    }

    /// The object's metadata.
    public func metadata() async throws -> StorageMetadata {
        StorageMetadata(json: try await client.send(.GET, objectURL).checked().json)
    }

    /// Updates the object's metadata (`PATCH`) and returns the result. Fields left nil stay as they are,
    /// custom keys are merged; from metadata read from the server, the fields and custom keys removed since
    /// are removed.
    public func updateMetadata(_ metadata: StorageMetadata) async throws -> StorageMetadata {
        let response = try await client.send(
            .PATCH, objectURL, headers: [("Content-Type", "application/json; charset=utf-8")],
            body: Data(metadata.updateResource.serialized().utf8)
        ).checked()
        return StorageMetadata(json: response.json)
    }

    /// Deletes the object.
    public func delete() async throws {
        _ = try await client.send(.DELETE, objectURL).checked()
    }

    /// The URL that downloads the object without credentials, as the SDKs' `getDownloadURL` makes it: the
    /// object's URL with `alt=media` and its first download token.
    public func downloadURL() async throws -> String {
        let metadata = try await metadata()
        guard let token = metadata.downloadTokens.first else {
            throw ClientError(.unknown, message: "\(self) has no download token.")
        }
        return "\(objectURL)?alt=media&token=\(token.urlComponentEncoded)"
    }

    /// Everything one level below this path (`delimiter=/`), every page of it: the objects as `items`, the
    /// folders as `prefixes`.
    public func listAll() async throws -> ListResult {
        let prefix = path.isEmpty ? "" : "\(path)/"
        var items: [StorageReference] = []
        var prefixes: [StorageReference] = []
        var pageToken: String?
        repeat {
            var url = "\(client.objectsURL)?prefix=\(prefix.urlComponentEncoded)&delimiter=%2F"
            if let pageToken { url += "&pageToken=\(pageToken.urlComponentEncoded)" }
            let page = try await client.send(.GET, url).checked().json
            for prefix in page["prefixes"]?.arrayValue ?? [] {
                if let path = prefix.stringValue { prefixes.append(client.reference(path)) }
            }
            for item in page["items"]?.arrayValue ?? [] {
                if let name = item["name"]?.stringValue { items.append(client.reference(name)) }
            }
            pageToken = page["nextPageToken"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        } while pageToken != nil
        return ListResult(items: items, prefixes: prefixes)
    }
}
