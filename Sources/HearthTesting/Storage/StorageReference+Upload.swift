import Foundation
import NIOHTTP1

extension StorageReference {
    /// Uploads `data` to this path in one `multipart/related` request, as the web SDK's `uploadBytes`
    /// does: the metadata JSON as the first part, the bytes as the second. Returns the new object's
    /// metadata; a rules denial is a `ClientError` with code `.permissionDenied`.
    public func putData(_ data: Data, metadata: StorageMetadata? = nil) async throws -> StorageMetadata {
        let resource = (metadata ?? StorageMetadata()).uploadResource(fullPath: path)
        let boundary = (0..<2).map { _ in String(UInt64.random(in: 0..<UInt64.max)) }.joined()
        var body = Data("--\(boundary)\r\nContent-Type: application/json; charset=utf-8\r\n\r\n".utf8)
        body.append(Data(resource.serialized().utf8))
        let contentType = resource["contentType"]?.stringValue ?? ""
        body.append(Data("\r\n--\(boundary)\r\nContent-Type: \(contentType)\r\n\r\n".utf8))
        body.append(data)
        body.append(Data("\r\n--\(boundary)--".utf8))
        let response = try await client.send(
            .POST, uploadURL,
            headers: [("X-Goog-Upload-Protocol", "multipart"), ("Content-Type", "multipart/related; boundary=\(boundary)")],
            body: body
        ).checked()
        return StorageMetadata(json: response.json)
    }

    /// Uploads `data` to this path with the resumable protocol, as the web SDK's `uploadBytesResumable`
    /// does: a `start` request with the metadata, then `upload` requests of `chunkSize` bytes at their
    /// offsets, the last one `upload, finalize`. `chunkSize` (1 MiB unless told) must be positive (else the
    /// upload fails with `invalidArgument` before any request); production wants multiples of 256 KiB. Returns the new object's metadata. The rules decide at the
    /// finalize; a denial there (or at the start) is a `ClientError` with code `.permissionDenied`.
    public func putDataResumable(
        _ data: Data, metadata: StorageMetadata? = nil, chunkSize: Int = 1 << 20
    ) async throws -> StorageMetadata {
        guard chunkSize > 0 else {
            throw ClientError(.invalidArgument, message: "chunkSize must be positive, not \(chunkSize).")
        }
        let resource = (metadata ?? StorageMetadata()).uploadResource(fullPath: path)
        let start = try await client.send(
            .POST, uploadURL,
            headers: [
                ("X-Goog-Upload-Protocol", "resumable"), ("X-Goog-Upload-Command", "start"),
                ("X-Goog-Upload-Header-Content-Length", String(data.count)),
                ("X-Goog-Upload-Header-Content-Type", resource["contentType"]?.stringValue ?? ""),
                ("Content-Type", "application/json; charset=utf-8"),
            ],
            body: Data(resource.serialized().utf8)
        ).checked()
        try Self.expectStatus(of: start, in: ["active"])
        guard let sessionURL = start.headers.first(name: "X-Goog-Upload-URL"), !sessionURL.isEmpty else {
            throw ClientError(
                .unknown, status: start.status, message: "The resumable upload's start gave no X-Goog-Upload-URL.")
        }
        var offset = 0
        while true {
            let end = min(offset + chunkSize, data.count)
            let command = end == offset ? "finalize" : end == data.count ? "upload, finalize" : "upload"
            let response = try await client.send(
                .POST, sessionURL,
                headers: [("X-Goog-Upload-Command", command), ("X-Goog-Upload-Offset", String(offset))],
                body: data.subdata(in: data.startIndex + offset..<data.startIndex + end)
            ).checked()
            if try Self.expectStatus(of: response, in: ["active", "final"]) == "final" {
                return StorageMetadata(json: response.json)
            }
            guard end < data.count else {
                throw ClientError(
                    .unknown, status: response.status, message: "The resumable upload is still active after its finalize.")
            }
            offset = end
        }
    }

    /// `http://host:port/v0/b/{bucket}/o?name={path}`, where uploads go.
    private var uploadURL: String { "\(client.objectsURL)?name=\(path.urlComponentEncoded)" }

    /// The `X-Goog-Upload-Status` of a resumable upload's response, which must be one of `allowed` (the SDKs
    /// fail without it).
    @discardableResult
    private static func expectStatus(
        of response: HTTPExchange.Response, in allowed: Set<String>
    ) throws(ClientError) -> String {
        let status = response.headers.first(name: "X-Goog-Upload-Status")
        guard let status, allowed.contains(status) else {
            throw ClientError(
                .unknown, status: response.status, message: "Unexpected X-Goog-Upload-Status: \(status ?? "none").")
        }
        return status
    }
}
