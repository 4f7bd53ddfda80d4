import EmulatorCore
import EmulatorHTTP
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// GCS JSON API uploads (admin, no rules): `uploadType=media`, `multipart` and `resumable`, whose bytes then
/// come in `PUT`s with `Content-Range` (308 until complete), as google-cloud-storage sends them.
extension StorageAPI {
    /// `POST /upload/storage/v1/b/{bucket}/o?uploadType=media|multipart|resumable` (and `POST /b/{b}/o`,
    /// an insert of metadata only).
    func insert(_ request: Request, _ bucket: String, query: FormFields, base: String) async throws -> Response {
        let uploadType = query["uploadType"] ?? (request.headers[.contentType]?.lowercased().hasPrefix("multipart/related") == true ? "multipart" : "media")
        switch uploadType {
        case "resumable":
            let metadata = try await Self.jsonBody(of: request)
            guard let name = query["name"] ?? metadata["name"]?.stringValue else {
                throw Self.cloudError(400, "Required parameter: name", reason: "required")
            }
            if let problem = Self.nameProblem(name) { throw Self.cloudError(400, problem, reason: "invalid") }
            // The GCS API is admin and decides nothing by the credential.
            let id = try startResumable(
                bucket, name, metadata: metadata, contentType: request.headers[.uploadContentType], credential: .none,
                declaredSize: request.headers[.uploadContentLength].flatMap { Int64($0) })
            var location = URLComponents(string: "\(base)/upload/storage/v1/b/\(Self.percentEncoded(bucket))/o")!
            location.queryItems = [
                URLQueryItem(name: "uploadType", value: "resumable"), URLQueryItem(name: "name", value: name),
                URLQueryItem(name: "upload_id", value: id),
            ]
            var response = Response(status: .ok)
            response.headers[.location] = location.url?.absoluteString ?? ""
            response.headers[.googUploadID] = id
            response.headers[.guploaderUploadID] = id
            return response
        case "multipart":
            guard let type = request.headers[.contentType], let boundary = MultipartRelated.boundary(of: type) else {
                throw Self.cloudError(400, "Bad content type. \(request.headers[.contentType] ?? "")", reason: "invalid")
            }
            return try await writingBlob { writer in
                let parts = try await MultipartRelated.read(request.body, boundary: boundary, into: writer, limit: maxUploadSize)
                guard let name = query["name"] ?? parts.metadata["name"]?.stringValue else {
                    throw Self.cloudError(400, "Required parameter: name", reason: "required")
                }
                if let problem = Self.nameProblem(name) { throw Self.cloudError(400, problem, reason: "invalid") }
                let object = try await commit(bucket, name, writer: writer, metadata: parts.metadata, contentType: parts.contentType, query: query)
                return .json(object.cloudJSON(base: base))
            }
        case "media":
            guard let name = query["name"] else { throw Self.cloudError(400, "Required parameter: name", reason: "required") }
            if let problem = Self.nameProblem(name) { throw Self.cloudError(400, problem, reason: "invalid") }
            let object = try await storeUpload(
                bucket, name, body: request.body, metadata: nil, contentType: request.headers[.contentType], query: query)
            return .json(object.cloudJSON(base: base))
        default:
            throw Self.cloudError(400, "Invalid upload type: \(uploadType).", reason: "invalid")
        }
    }

    /// Writes `body` as object `name`, subject to the query's generation preconditions.
    func storeUpload(
        _ bucket: String, _ name: String, body: some AsyncSequence<ByteBuffer, any Error>, metadata: JSONValue?,
        contentType: String?, query: FormFields
    ) async throws -> StoredObject {
        try await writingBlob { writer in
            try await UploadBody.write(body, to: writer, limit: maxUploadSize)
            return try await commit(bucket, name, writer: writer, metadata: metadata, contentType: contentType, query: query)
        }
    }

    /// Finishes `writer`'s blob and stores it as object `name` (admin: no rules), checking the query's
    /// preconditions against the object it replaces.
    func commit(
        _ bucket: String, _ name: String, writer: BlobWriter, metadata: JSONValue?, contentType: String?, query: FormFields,
        componentCount: Int? = nil
    ) async throws -> StoredObject {
        let blob = try await writer.finish()
        var object = StoredObject(bucket: bucket, name: name, blob: blob, metadata: metadata, now: now)
        object.componentCount = componentCount
        if object.contentType == nil {
            object.contentType = contentType.flatMap { $0.isEmpty ? nil : $0 } ?? "application/octet-stream"
        }
        return try store.put(object) { existing in
            if let existing { try Self.checkPreconditions(query, existing) } else { try Self.checkAbsentPreconditions(query) }
        }
    }

    /// `PUT` of a resumable upload's bytes: `Content-Range: bytes a-b/total` (or `*/total` to finish or ask,
    /// `a-b/*` while the total is unknown; without one, the whole upload), each a `ResumableUpload` event. 308
    /// with `Range` until complete, then the object.
    func resumableChunk(_ request: Request, _ bucket: String, query: FormFields, base: String) async throws -> Response {
        guard let id = query["upload_id"], uploads.contains(id) else {
            throw Self.cloudError(404, "No such upload.", reason: "notFound")
        }
        let range = request.headers[.contentRange].flatMap(ContentRange.init(parsing:))
        if request.headers[.contentRange] != nil, range == nil {
            throw Self.cloudError(400, "Invalid Content-Range: \(request.headers[.contentRange]!).", reason: "invalid")
        }
        // Without a total the upload goes on; without a `Content-Range` the body is the whole upload.
        let completion: ResumableUpload.Completion =
            if let range { range.total.map { .atTotal($0) } ?? .later } else { .now }
        let outcome = try await uploads.withSession(id) { session -> Response in
            do {
                let outcome =
                    if let range, range.first == nil {
                        try session.upload.complete(completion)
                    } else {
                        try await append(request, at: range?.first ?? 0, to: &session, then: completion)
                    }
                switch outcome {
                case .progress(let progress):
                    var response = Response(status: HTTPResponse.Status(code: 308))
                    if progress.received > 0 { response.headers[.range] = "bytes=0-\(progress.received - 1)" }
                    return response
                case .finalize(let object):
                    let stored = try await finalize(&session) { writer in
                        try await commit(
                            object.bucket, object.name, writer: writer, metadata: object.metadata, contentType: nil, query: query)
                    }
                    return .json(stored.cloudJSON(base: base))
                }
            } catch let refusal as ResumableUpload.Refusal {
                switch refusal {
                case .alreadyFinal:
                    // A repeated request after the upload completed answers its object (one since removed: as a
                    // cancelled upload, for the session holds no bytes any more).
                    if let object = store.object(session.upload.bucket, session.upload.name) {
                        return .json(object.cloudJSON(base: base))
                    }
                    throw Self.cancelled()
                case .gap(let expected, _):
                    var response = Response(status: HTTPResponse.Status(code: 308))
                    if expected > 0 { response.headers[.range] = "bytes=0-\(expected - 1)" }
                    return response
                case .beyondTotal:
                    throw Self.cloudError(400, refusal.description, reason: "invalid")
                case .notActive, .beyondDeclaredSize, .notCancellable:
                    throw Self.cancelled()
                }
            }
        }
        guard let outcome else { throw Self.cloudError(409, "Another request is working on this upload.", reason: "conflict") }
        return outcome
    }

    /// `DELETE` of a resumable upload's URL: cancelled (499, as GCS answers; an upload already final, or busy
    /// with another request, stays as it is).
    func cancelResumable(_ query: FormFields) async throws -> Response {
        guard let id = query["upload_id"], uploads.contains(id) else {
            throw Self.cloudError(404, "No such upload.", reason: "notFound")
        }
        _ = await uploads.withSession(id) { session in try? cancel(&session) }
        return Response(status: HTTPResponse.Status(code: 499))
    }

    /// 499 for a request on a cancelled upload.
    private static func cancelled() -> APIError {
        cloudError(499, "The upload was cancelled.", reason: "cancelled")
    }
}

/// A `Content-Range: bytes a-b/total` request header (`*` for an unknown total or no bytes).
struct ContentRange: Equatable {
    var first: Int64?
    var last: Int64?
    var total: Int64?

    init?(parsing header: String) {
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = text.dropFirst(6).split(separator: "/", maxSplits: 1).map(String.init)
        guard spec.count == 2 else { return nil }
        if spec[1] == "*" { total = nil } else if let value = Int64(spec[1]) { total = value } else { return nil }
        if spec[0] == "*" { return }
        let bounds = spec[0].split(separator: "-").map { Int64($0) }
        guard bounds.count == 2, let first = bounds[0], let last = bounds[1], first <= last else { return nil }
        self.first = first
        self.last = last
    }
}
