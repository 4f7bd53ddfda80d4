import EmulatorCore
import EmulatorHTTP
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import SecurityRules

/// The Firebase v0 API (`/v0/b/{bucket}/o/{name}`), what the web, iOS and Android SDKs call, with
/// `storage.rules` deciding every request but an admin's (`Bearer owner` / `Firebase owner`). Statuses,
/// headers and messages are production's and the official emulator's (firebase-tools
/// `src/emulator/storage/apis/firebase.ts`).
extension StorageAPI {
    func firebase(_ request: Request, segments: [String]) async throws -> Response {
        if segments.isEmpty || segments == [""], request.method == .get { return .json(["emulator": "storage"]) }
        guard segments.count >= 3, segments[0] == "b", segments[2] == "o", !segments[1].isEmpty else {
            throw Self.error(404, "Not Found.")
        }
        let bucket = Self.decoded(segments[1])
        try store.ensureBucket(bucket, now: now)
        let credential = Credential(authorizationHeader: request.headers[.authorization])
        if credential != .owner, rules.ruleset(for: bucket) == nil {
            throw Self.error(403, "Permission denied. Storage Emulator has no loaded ruleset.")
        }
        let query = request.queryFields
        let name = segments.count > 3 ? Self.decoded(segments[3...].joined(separator: "/")) : nil
        switch (request.method, name) {
        case (.get, nil): return try list(bucket, query: query, credential: credential)
        case (.get, let name?): return try get(bucket, name, request: request, credential: credential)
        case (.post, _), (.put, _):
            if request.method == .put, request.headers[.httpMethodOverride]?.lowercased() == "patch", let name {
                return try await updateMetadata(bucket, name, request: request, credential: credential)
            }
            if let name, query["create_token"] != nil || query["delete_token"] != nil {
                return try token(bucket, name, query: query, credential: credential)
            }
            return try await upload(bucket, name: name ?? query["name"], request: request, credential: credential)
        case (.patch, let name?): return try await updateMetadata(bucket, name, request: request, credential: credential)
        case (.delete, let name?): return try delete(bucket, name, credential: credential)
        default: throw Self.error(404, "Not Found.")
        }
    }

    // MARK: Reads

    /// Metadata (`GET`) or bytes (`alt=media`). A valid download `token` skips the rules.
    private func get(_ bucket: String, _ name: String, request: Request, credential: Credential) throws -> Response {
        let query = request.queryFields
        let existing = store.object(bucket, name)
        let tokenValid = query["token"].map { token in existing?.downloadTokens.contains(token) == true } ?? false
        guard tokenValid || rules.allows(.get, bucket: bucket, name: name, credential: credential, resource: existing, time: now)
        else { throw Self.error(403, "Permission denied. No READ permission.") }
        guard var object = existing else { throw Self.error(404, "Not Found.") }
        if object.downloadTokens.isEmpty {
            object = try store.update(bucket, name) { object in
                guard object.downloadTokens.isEmpty else { return }
                object.downloadTokens = [Self.newToken()]
                object.touch(now)
            } ?? object
        }
        if query["alt"] == "media" {
            return try ObjectDownload.response(
                for: object, range: request.headers[.range], acceptEncoding: request.headers[.acceptEncoding], store: store)
        }
        return .json(object.firebaseJSON)
    }

    /// `GET /v0/b/{bucket}/o?prefix=&delimiter=&pageToken=&maxResults=`: names and prefixes only.
    private func list(_ bucket: String, query: FormFields, credential: Credential) throws -> Response {
        let prefix = query["prefix"] ?? ""
        guard prefix.isEmpty || prefix.hasSuffix("/") else {
            throw Self.error(400, "The prefix parameter is required to be empty or ends with a single / character.")
        }
        var maxResults = 1000
        if let text = query["maxResults"] {
            guard let value = Int(text), value > 0 else { throw Self.error(400, "Invalid maxResults: \(text).") }
            maxResults = min(value, 1000)
        }
        var rulePath = prefix
        while rulePath.hasSuffix("/") { rulePath.removeLast() }
        guard rules.allows(.list, bucket: bucket, name: rulePath, credential: credential, resource: nil, time: now) else {
            throw Self.error(403, "Permission denied. No LIST permission.")
        }
        let delimiter = query["delimiter"].flatMap { $0.isEmpty ? nil : $0 }
        let page = store.list(bucket, prefix: prefix, delimiter: delimiter, pageToken: query["pageToken"], maxResults: maxResults)
        var json: [String: JSONValue] = [
            "prefixes": .array(page.prefixes.filter { Self.isValidPath($0, trailingSlash: true) }.map { .string($0) }),
            "items": .array(page.objects.filter { Self.isValidPath($0.name) }.map {
                ["name": .string($0.name), "bucket": .string($0.bucket)]
            }),
        ]
        if let next = page.nextPageToken { json["nextPageToken"] = .string(next) }
        return .json(.object(json))
    }

    /// Whether the v0 API lists `path` (no empty segment, at most one trailing slash for a prefix).
    private static func isValidPath(_ path: String, trailingSlash: Bool = false) -> Bool {
        var path = Substring(path)
        if trailingSlash, path.hasSuffix("/") { path = path.dropLast() }
        if path.hasPrefix("/") { path = path.dropFirst() }
        return !path.isEmpty && !path.split(separator: "/", omittingEmptySubsequences: false).contains { $0.isEmpty }
    }

    // MARK: Writes

    /// `PATCH` (or `PUT` with `X-HTTP-Method-Override: PATCH`): writable metadata, `null` removes.
    private func updateMetadata(_ bucket: String, _ name: String, request: Request, credential: Credential) async throws
        -> Response
    {
        let body = try await Self.jsonBody(of: request)
        let existing = store.object(bucket, name)
        var proposed = existing
        proposed?.apply(body)
        proposed?.touch(now)
        guard rules.allows(.update, bucket: bucket, name: name, credential: credential, resource: existing, proposed: proposed, time: now)
        else { throw Self.error(403, "Permission denied. No WRITE permission.") }
        let time = now
        guard let updated = try store.update(bucket, name, { object in
            object.apply(body)
            object.touch(time)
        }) else { throw Self.error(404, "Not Found.") }
        return Self.withObjectHeaders(.json(updated.firebaseJSON), updated)
    }

    /// `DELETE`: 204.
    private func delete(_ bucket: String, _ name: String, credential: Credential) throws -> Response {
        let existing = store.object(bucket, name)
        guard rules.allows(.delete, bucket: bucket, name: name, credential: credential, resource: existing, time: now) else {
            throw Self.error(403, "Permission denied. No WRITE permission.")
        }
        guard try store.delete(bucket, name) != nil else { throw Self.error(404, "Not Found.") }
        return Response(status: .noContent)
    }

    /// `?create_token=true` / `?delete_token=<token>`: admin only.
    private func token(_ bucket: String, _ name: String, query: FormFields, credential: Credential) throws -> Response {
        guard credential == .owner else { throw Self.error(403, "Missing admin credentials.") }
        let time = now
        let updated: StoredObject?
        if let create = query["create_token"] {
            guard create == "true" else { throw Self.error(400, "Invalid create_token: \(create).") }
            updated = try store.update(bucket, name) { object in
                object.downloadTokens.append(Self.newToken())
                object.touch(time)
            }
        } else {
            let token = query["delete_token"] ?? ""
            updated = try store.update(bucket, name) { object in
                object.downloadTokens.removeAll { $0 == token }
                if object.downloadTokens.isEmpty { object.downloadTokens = [Self.newToken()] }
                object.touch(time)
            }
        }
        guard let updated else { throw Self.error(404, "Not Found.") }
        return Self.withObjectHeaders(.json(updated.firebaseJSON), updated)
    }

    private static func withObjectHeaders(_ response: Response, _ object: StoredObject) -> Response {
        var response = response
        if let value = object.contentDisposition { response.headers[.contentDisposition] = value }
        if let value = object.contentEncoding { response.headers[.contentEncoding] = value }
        if let value = object.cacheControl { response.headers[.cacheControl] = value }
        if let value = object.contentLanguage { response.headers[.contentLanguage] = value }
        return response
    }

    /// A new download token (a UUID, as production's).
    static func newToken() -> String { UUID().uuidString.lowercased() }

    // MARK: Uploads

    /// Media, multipart and resumable uploads (`X-Goog-Upload-Protocol`, `X-Goog-Upload-Command`).
    private func upload(_ bucket: String, name: String?, request: Request, credential: Credential) async throws -> Response {
        let uploadProtocol = request.headers[.googUploadProtocol]?.lowercased()
        if let command = request.headers[.googUploadCommand]?.lowercased() {
            return try await resumable(bucket, name: name, command: command, request: request, credential: credential)
        }
        if uploadProtocol == "resumable" { throw Self.error(400, "Missing X-Goog-Upload-Command.") }
        guard let name else { throw Self.error(400, "Missing object name: pass it in the path or as ?name=.") }
        if let problem = Self.nameProblem(name) { throw Self.error(400, problem) }
        return try await writingBlob { writer in
            var metadata: JSONValue?
            var contentType = request.headers[.contentType]
            if uploadProtocol == "multipart" {
                guard let type = contentType, type.lowercased().hasPrefix("multipart/related"),
                    let boundary = MultipartRelated.boundary(of: type)
                else { throw Self.error(400, "Bad content type. \(contentType ?? "")") }
                let parts = try await MultipartRelated.read(request.body, boundary: boundary, into: writer, limit: maxUploadSize)
                metadata = parts.metadata
                contentType = parts.contentType
            } else {
                try await UploadBody.write(request.body, to: writer, limit: maxUploadSize)
            }
            let blob = try await writer.finish()
            let object = try finishUpload(
                bucket, name, blob: blob, metadata: metadata, contentType: contentType, credential: credential)
            return .json(object.firebaseJSON)
        }
    }

    /// Writes the object of a complete upload if the rules allow it (`create`); else removes the blob and
    /// refuses with 403.
    func finishUpload(
        _ bucket: String, _ name: String, blob: Blob, metadata: JSONValue?, contentType: String?, credential: Credential
    ) throws -> StoredObject {
        let time = now
        var object = StoredObject(bucket: bucket, name: name, blob: blob, metadata: metadata, now: time)
        if object.contentType == nil {
            object.contentType = contentType.flatMap { $0.isEmpty ? nil : $0 } ?? "application/octet-stream"
        }
        if object.downloadTokens.isEmpty { object.downloadTokens = [Self.newToken()] }
        if object.contentDisposition == nil { object.contentDisposition = "inline" }
        // New and replaced contents alike are `create` (the official emulator's rule; `update` is for
        // metadata changes).
        let existing = store.object(bucket, name)
        guard
            rules.allows(
                .create, bucket: bucket, name: name, credential: credential, resource: existing, proposed: object, time: time)
        else {
            store.discard(blob)
            throw Self.error(403, "Permission denied. No WRITE permission.")
        }
        return try store.put(object)
    }

    /// The resumable protocol: `start`, then `upload` / `upload, finalize` / `finalize` / `query` /
    /// `cancel` on the upload URL (`upload_id`), each a `ResumableUpload` event. The object is written as the
    /// start request's caller (the iOS SDK sends its chunks without an `Authorization`).
    private func resumable(_ bucket: String, name: String?, command: String, request: Request, credential: Credential)
        async throws -> Response
    {
        if command == "start" {
            guard let name else { throw Self.error(400, "Missing object name: pass it in the path or as ?name=.") }
            if let problem = Self.nameProblem(name) { throw Self.error(400, problem) }
            let id = try startResumable(
                bucket, name, metadata: try await Self.jsonBody(of: request),
                contentType: request.headers[.googUploadHeaderContentType], credential: credential,
                declaredSize: request.headers[.googUploadHeaderContentLength].flatMap { Int64($0) })
            var url = URLComponents(string: "\(Self.base(of: request))/v0/b/\(Self.percentEncoded(bucket))/o")!
            url.queryItems = [
                URLQueryItem(name: "name", value: name), URLQueryItem(name: "upload_id", value: id),
                URLQueryItem(name: "upload_protocol", value: "resumable"),
            ]
            var response = Response(status: .ok)
            response.headers[.googUploadChunkGranularity] = "262144"
            response.headers[.googUploadControlURL] = ""
            response.headers[.googUploadStatus] = "active"
            response.headers[.googUploadID] = id
            response.headers[.guploaderUploadID] = id
            response.headers[.googUploadURL] = url.url?.absoluteString ?? ""
            return response
        }
        guard let id = request.queryFields["upload_id"] else { throw Self.error(400, "Missing upload_id.") }
        guard uploads.contains(id) else { throw Self.error(404, "Not Found.") }
        let outcome = try await uploads.withSession(id) { session -> Response in
            do {
                let outcome: ResumableUpload.Outcome
                switch try UploadCommand(command, offset: request.headers[.googUploadOffset]) {
                case .query:
                    var response = Response(status: .ok)
                    response.headers[.googUploadSizeReceived] = String(session.upload.progress.received)
                    response.headers[.googUploadStatus] = session.upload.progress.status.rawValue
                    return response
                case .cancel:
                    try cancel(&session)
                    return Response(status: .ok)
                case .upload(let offset, let finalize):
                    outcome = try await append(request, at: offset, to: &session, then: finalize ? .now : .later)
                case .finalize:
                    outcome = try session.upload.complete(.now)
                }
                switch outcome {
                case .progress(let progress):
                    var response = Response(status: .ok)
                    response.headers[.googUploadStatus] = progress.status.rawValue
                    response.headers[.googUploadID] = id
                    response.headers[.guploaderUploadID] = id
                    return response
                case .finalize(let object):
                    var response: Response
                    do {
                        let stored = try await finalize(&session) { writer in
                            try finishUpload(
                                object.bucket, object.name, blob: try await writer.finish(), metadata: object.metadata,
                                contentType: nil, credential: object.credential)
                        }
                        response = .json(stored.firebaseJSON)
                    } catch let error as APIError {
                        response = .json(error.json, status: error.code)
                    }
                    response.headers[.googUploadStatus] = "final"
                    return response
                }
            } catch let refusal as ResumableUpload.Refusal {
                return Self.refusal(refusal)
            }
        }
        guard let outcome else { throw Self.error(409, "Another request is working on this upload.") }
        return outcome
    }

    /// A refused resumable command, as production answers it.
    private static func refusal(_ refusal: ResumableUpload.Refusal) -> Response {
        switch refusal {
        case .alreadyFinal(let previous):
            var response = Response(status: HTTPResponse.Status(code: previous))
            response.headers[.googUploadStatus] = "final"
            return response
        case .gap(let expected, _):
            var response = Response.json(error(400, refusal.description).json, status: 400)
            response.headers[.googUploadStatus] = "active"
            response.headers[.googUploadSizeReceived] = String(expected)
            return response
        case .notActive, .beyondDeclaredSize, .beyondTotal, .notCancellable:
            return .json(error(400, refusal.description).json, status: 400)
        }
    }
}

/// A resumable upload's `X-Goog-Upload-Command` (Firebase v0): a comma-separated list, of which `query` wins,
/// then `cancel`, then `upload` (with `finalize`, the last chunk), then `finalize`.
private enum UploadCommand {
    /// `query`: the bytes received and the status.
    case query
    /// `cancel`: no object is written.
    case cancel
    /// `upload` of the body at `X-Goog-Upload-Offset` (`nil` without one: appended), the upload finalized
    /// after it with `finalize`.
    case upload(offset: Int64?, finalize: Bool)
    /// `finalize` alone.
    case finalize

    /// Reads `header` (and `offset`, the `X-Goog-Upload-Offset` of an `upload`); 400 for neither.
    init(_ header: String, offset: String?) throws {
        let commands = Set(header.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        if commands.contains("query") {
            self = .query
        } else if commands.contains("cancel") {
            self = .cancel
        } else if commands.contains("upload") {
            var value: Int64?
            if let offset {
                guard let parsed = Int64(offset) else { throw StorageAPI.error(400, "Invalid X-Goog-Upload-Offset: \(offset).") }
                value = parsed
            }
            self = .upload(offset: value, finalize: commands.contains("finalize"))
        } else if commands.contains("finalize") {
            self = .finalize
        } else {
            throw StorageAPI.error(400, "Unknown X-Goog-Upload-Command: \(header).")
        }
    }
}
