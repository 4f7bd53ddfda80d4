import EmulatorCore
import EmulatorHTTP
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The GCS JSON API subset the admin SDKs and google-cloud-storage use, admin only (no rules), at `/b/...`,
/// `/storage/v1/b/...`, `/upload/storage/v1/b/...` and `/download/storage/v1/b/...`; plus XML-style
/// `/{bucket}/{object}` downloads and V4-signed GET / PUT URLs (the signature is not checked: the emulator
/// has no keys). Errors are GCS's (`{"error":{"code","message","errors":[{"reason"}]}}`).
extension StorageAPI {
    func cloud(_ request: Request, segments raw: [String]) async throws -> Response {
        var segments = raw
        var mode = CloudMode.api
        if segments.starts(with: ["upload", "storage", "v1"]) {
            mode = .upload
            segments.removeFirst(3)
        } else if segments.starts(with: ["download", "storage", "v1"]) {
            mode = .download
            segments.removeFirst(3)
        } else if segments.starts(with: ["storage", "v1"]) {
            segments.removeFirst(2)
        }
        let query = request.queryFields
        if segments.first == "b" {
            return try await bucketRoute(request, Array(segments.dropFirst()), mode: mode, query: query)
        }
        // XML-style `/{bucket}/{object...}`, which signed URLs use.
        guard segments.count >= 2, !segments[0].isEmpty else { throw Self.cloudError(404, "Not Found", reason: "notFound") }
        let bucket = Self.decoded(segments[0])
        let name = Self.decoded(segments.dropFirst().joined(separator: "/"))
        switch request.method {
        case .get, .head:
            guard let object = store.object(bucket, name) else { return Self.noSuchMedia(bucket, name) }
            return try ObjectDownload.response(
                for: object, range: request.headers[.range], acceptEncoding: request.headers[.acceptEncoding], store: store)
        case .put:
            let object = try await storeUpload(
                bucket, name, body: request.body, metadata: nil, contentType: request.headers[.contentType], query: query)
            var response = Response(status: .ok)
            response.headers[.eTag] = "\"\(object.md5Hash)\""
            return response
        case .delete:
            guard try store.delete(bucket, name) != nil else { throw Self.noSuchObject(bucket, name) }
            return Response(status: .noContent)
        default:
            throw Self.cloudError(405, "Method not allowed.", reason: "methodNotAllowed")
        }
    }

    private enum CloudMode { case api, upload, download }

    /// `/b`, `/b/{bucket}`, `/b/{bucket}/o...`.
    private func bucketRoute(_ request: Request, _ segments: [String], mode: CloudMode, query: FormFields) async throws
        -> Response
    {
        let base = Self.base(of: request)
        guard let first = segments.first, !first.isEmpty else {
            switch request.method {
            case .get:
                return .json(["kind": "storage#buckets", "items": .array(store.buckets.map { $0.cloudJSON(base: base) })])
            case .post:
                let body = try await Self.jsonBody(of: request)
                guard let name = body["name"]?.stringValue ?? query["name"], !name.isEmpty else {
                    throw Self.cloudError(400, "Required parameter: name", reason: "required")
                }
                if store.bucket(name) != nil {
                    throw Self.cloudError(409, "Your previous request to create the named bucket succeeded and you already own it.", reason: "conflict")
                }
                return .json(try store.ensureBucket(name, now: now).cloudJSON(base: base))
            default: throw Self.cloudError(405, "Method not allowed.", reason: "methodNotAllowed")
            }
        }
        let bucket = Self.decoded(first)
        if segments.count == 1 {
            switch request.method {
            case .get:
                guard let found = store.bucket(bucket) else { throw Self.cloudError(404, "The specified bucket does not exist.", reason: "notFound") }
                return .json(found.cloudJSON(base: base))
            case .delete:
                guard store.bucket(bucket) != nil else { throw Self.cloudError(404, "The specified bucket does not exist.", reason: "notFound") }
                guard try store.deleteBucket(bucket) else {
                    throw Self.cloudError(409, "The bucket you tried to delete is not empty.", reason: "conflict")
                }
                return Response(status: .noContent)
            default: throw Self.cloudError(405, "Method not allowed.", reason: "methodNotAllowed")
            }
        }
        guard segments[1] == "o" else { throw APIError.notImplemented("Not implemented: \(request.method) \(request.uri.path)") }
        if segments.count == 2 || (segments.count == 3 && segments[2].isEmpty) {
            if mode == .upload, query["upload_id"] != nil {
                switch request.method {
                case .put, .post: return try await resumableChunk(request, bucket, query: query, base: base)
                case .delete: return try await cancelResumable(query)
                default: break
                }
            }
            switch (request.method, mode) {
            case (.get, _): return listObjects(bucket, query: query, base: base)
            case (.post, _), (.put, .upload): return try await insert(request, bucket, query: query, base: base)
            default: throw Self.cloudError(405, "Method not allowed.", reason: "methodNotAllowed")
            }
        }
        // `/o/{object}` or `/o/{object}/{copyTo|rewriteTo}/b/{bucket}/o/{object}`, `/o/{object}/compose`, `/o/{object}/acl`.
        var rest = Array(segments.dropFirst(2))
        if rest.count >= 1, rest.last == "compose", request.method == .post {
            return try await compose(request, bucket, Self.decoded(rest.dropLast().joined(separator: "/")), base: base)
        }
        if let verb = rest.firstIndex(where: { $0 == "copyTo" || $0 == "rewriteTo" }), rest.count == verb + 5,
            rest[verb + 1] == "b", rest[verb + 3] == "o"
        {
            let source = Self.decoded(rest[..<verb].joined(separator: "/"))
            return try await copy(
                request, from: (bucket, source), to: (Self.decoded(rest[verb + 2]), Self.decoded(rest[verb + 4])),
                rewrite: rest[verb] == "rewriteTo", base: base)
        }
        if rest.last == "acl" {
            rest.removeLast()
            return .json([
                "kind": "storage#objectAccessControl", "bucket": .string(bucket),
                "object": .string(Self.decoded(rest.joined(separator: "/"))), "entity": "allUsers", "role": "READER",
            ])
        }
        let name = Self.decoded(rest.joined(separator: "/"))
        switch request.method {
        case .get, .head:
            guard let object = store.object(bucket, name) else {
                if query["alt"] == "media" || mode == .download { return Self.noSuchMedia(bucket, name) }
                throw Self.noSuchObject(bucket, name)
            }
            try Self.checkPreconditions(query, object)
            if query["alt"] == "media" || mode == .download {
                return try ObjectDownload.response(
                for: object, range: request.headers[.range], acceptEncoding: request.headers[.acceptEncoding], store: store)
            }
            return .json(object.cloudJSON(base: base))
        case .patch, .put:
            if mode == .upload { return try await resumableChunk(request, bucket, query: query, base: base) }
            let body = try await Self.jsonBody(of: request)
            let time = now
            let updated = try store.update(bucket, name) { object in
                try Self.checkPreconditions(query, object)
                if request.method == .put {
                    // PUT replaces the writable metadata.
                    for field in ["contentType", "contentEncoding", "contentDisposition", "contentLanguage", "cacheControl"] {
                        if body[field] == nil { object.apply([field: .null]) }
                    }
                    if body["metadata"] == nil { object.customMetadata = [:] }
                }
                object.apply(body)
                object.touch(time)
            }
            guard let updated else { throw Self.noSuchObject(bucket, name) }
            return .json(updated.cloudJSON(base: base))
        case .delete:
            if mode == .upload { return try await cancelResumable(query) }
            guard try store.delete(bucket, name, check: { try Self.checkPreconditions(query, $0) }) != nil else {
                throw Self.noSuchObject(bucket, name)
            }
            return Response(status: .noContent)
        case .post where mode == .upload:
            return try await insert(request, bucket, query: query, base: base)
        default:
            throw Self.cloudError(405, "Method not allowed.", reason: "methodNotAllowed")
        }
    }

    // MARK: Listing

    private func listObjects(_ bucket: String, query: FormFields, base: String) -> Response {
        let maxResults = query["maxResults"].flatMap { Int($0) }.map { max(1, min($0, 1000)) } ?? 1000
        let delimiter = query["delimiter"].flatMap { $0.isEmpty ? nil : $0 }
        var page = store.list(
            bucket, prefix: query["prefix"] ?? "", delimiter: delimiter, pageToken: query["pageToken"], maxResults: maxResults)
        if let start = query["startOffset"] { page.objects.removeAll { $0.name.utf8.lexicographicallyPrecedes(start.utf8) } }
        if let end = query["endOffset"] { page.objects.removeAll { !$0.name.utf8.lexicographicallyPrecedes(end.utf8) } }
        var json: [String: JSONValue] = ["kind": "storage#objects"]
        if !page.objects.isEmpty { json["items"] = .array(page.objects.map { $0.cloudJSON(base: base) }) }
        if !page.prefixes.isEmpty { json["prefixes"] = .array(page.prefixes.map { .string($0) }) }
        if let next = page.nextPageToken { json["nextPageToken"] = .string(next) }
        return .json(.object(json))
    }

    // MARK: Copy, rewrite, compose

    private func copy(
        _ request: Request, from source: (bucket: String, name: String), to destination: (bucket: String, name: String),
        rewrite: Bool, base: String
    ) async throws -> Response {
        let body = try await Self.jsonBody(of: request)
        guard let original = store.object(source.bucket, source.name) else {
            throw Self.noSuchObject(source.bucket, source.name)
        }
        let blob = try await store.copy(original.blob)
        var object = original
        object.bucket = destination.bucket
        object.name = destination.name
        object.blob = blob
        let time = now
        object.generation = Int64((time.timeIntervalSince1970 * 1_000_000).rounded())
        object.metageneration = 1
        object.timeCreated = time
        object.updated = time
        if body.objectValue?.isEmpty == false { object.apply(body) }
        let stored = try store.put(object)
        guard rewrite else { return .json(stored.cloudJSON(base: base)) }
        return .json([
            "kind": "storage#rewriteResponse", "totalBytesRewritten": .string(String(stored.size)),
            "objectSize": .string(String(stored.size)), "done": true, "resource": stored.cloudJSON(base: base),
        ])
    }

    /// `POST /b/{bucket}/o/{destination}/compose`: the source objects' bytes in order.
    private func compose(_ request: Request, _ bucket: String, _ name: String, base: String) async throws -> Response {
        let body = try await Self.jsonBody(of: request)
        guard let sources = body["sourceObjects"]?.arrayValue, !sources.isEmpty else {
            throw Self.cloudError(400, "Required parameter: sourceObjects", reason: "required")
        }
        guard sources.count <= 32 else {
            throw Self.cloudError(400, "The number of source components provided (\(sources.count)) exceeds the maximum (32)", reason: "invalid")
        }
        var parts: [StoredObject] = []
        for source in sources {
            guard let sourceName = source["name"]?.stringValue else {
                throw Self.cloudError(400, "Required parameter: sourceObjects[].name", reason: "required")
            }
            guard let part = store.object(bucket, sourceName) else { throw Self.noSuchObject(bucket, sourceName) }
            parts.append(part)
        }
        return try await writingBlob { writer in
            for part in parts { try await store.append(part.blob, to: writer) }
            var metadata = body["destination"] ?? [:]
            if metadata["contentType"] == nil, case .object(var members) = metadata {
                members["contentType"] = parts[0].contentType.map { .string($0) } ?? .null
                metadata = .object(members)
            }
            let object = try await commit(
                bucket, name, writer: writer, metadata: metadata, contentType: nil, query: request.queryFields,
                componentCount: parts.count)
            return .json(object.cloudJSON(base: base))
        }
    }

    // MARK: Preconditions and errors

    /// `ifGenerationMatch`, `ifGenerationNotMatch`, `ifMetagenerationMatch`, `ifMetagenerationNotMatch`
    /// against an existing object: 412 when one fails.
    static func checkPreconditions(_ query: FormFields, _ object: StoredObject) throws {
        func value(_ names: [String]) -> Int64? { names.lazy.compactMap { query[$0].flatMap { Int64($0) } }.first }
        let failed =
            value(["ifGenerationMatch", "if_generation_match"]).map { $0 != object.generation } == true
            || value(["ifGenerationNotMatch", "if_generation_not_match"]).map { $0 == object.generation } == true
            || value(["ifMetagenerationMatch", "if_metageneration_match"]).map { $0 != object.metageneration } == true
            || value(["ifMetagenerationNotMatch", "if_metageneration_not_match"]).map { $0 == object.metageneration } == true
        if failed { throw conditionNotMet() }
    }

    /// The preconditions of a write where no object exists: only `ifGenerationMatch=0` (or none) holds.
    static func checkAbsentPreconditions(_ query: FormFields) throws {
        if let text = query["ifGenerationMatch"] ?? query["if_generation_match"], let value = Int64(text), value != 0 {
            throw conditionNotMet()
        }
        if query["ifMetagenerationMatch"] != nil || query["if_metageneration_match"] != nil { throw conditionNotMet() }
    }

    private static func conditionNotMet() -> APIError {
        cloudError(412, "At least one of the pre-conditions you specified did not hold.", reason: "conditionNotMet")
    }

    /// A GCS JSON API error with its `errors[0].reason`.
    static func cloudError(_ code: Int, _ message: String, reason: String) -> APIError {
        APIError(code: code, message: message, status: nil, reason: reason)
    }

    /// 404 for a missing object.
    static func noSuchObject(_ bucket: String, _ name: String) -> APIError {
        cloudError(404, "No such object: \(bucket)/\(name)", reason: "notFound")
    }

    /// 404 for a missing object's bytes: plain text, as GCS answers media requests.
    static func noSuchMedia(_ bucket: String, _ name: String) -> Response {
        .text("No such object: \(bucket)/\(name)", status: 404)
    }
}
