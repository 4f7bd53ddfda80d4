import EmulatorCore
import EmulatorHTTP
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import SecurityRules

/// The Storage emulator's HTTP edge, one port for three APIs over one object store: the Firebase v0 API
/// (`/v0/...`, rules enforced), the GCS JSON API (`/b/...`, `/storage/v1/...`, `/upload/...`,
/// `/download/...`, admin only) and the emulator-only `/internal/...` endpoints.
struct StorageAPI: Sendable {
    let store: ObjectStore
    let uploads: UploadSessions
    let rules: StorageRules
    let clock: any EmulatorClock
    /// The largest object an upload may create.
    let maxUploadSize: Int64
    let logger: Logger

    func handle(_ request: Request, context: EmulatorContext) async throws -> Response {
        let segments = request.uri.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        do {
            switch segments.first {
            case "v0": return try await firebase(request, segments: Array(segments.dropFirst()))
            case "internal": return try await internalEndpoint(request, segments: Array(segments.dropFirst()))
            default: return try await cloud(request, segments: segments)
            }
        } catch let error as DurableStoreError {
            // The data folder refused the change, which was not made.
            throw Self.error(503, "The change could not be stored: \(error.message)")
        }
    }

    /// `PUT /internal/setRules`, `POST /internal/reset`, `POST /internal/export` (emulator-only, as the
    /// official emulator serves them to rules-unit-testing and the CLI).
    private func internalEndpoint(_ request: Request, segments: [String]) async throws -> Response {
        switch (request.method, segments) {
        case (.put, ["setRules"]):
            let body = try await Self.jsonBody(of: request)
            guard let files = body["rules"]?["files"]?.arrayValue, !files.isEmpty else {
                return .json(["message": "Request body must include 'rules.files' array"], status: 400)
            }
            var parsed: [StorageRules.File] = []
            for file in files {
                guard let name = file["name"]?.stringValue, let content = file["content"]?.stringValue else {
                    return .json(["message": "Each member of 'rules.files' array must contain 'name' and 'content'"], status: 400)
                }
                let bucket = file["resource"]?.stringValue
                if files.count > 1, bucket == nil {
                    return .json(
                        ["message": "Each member of 'rules.files' array must contain 'name', 'content', and 'resource'"], status: 400)
                }
                parsed.append(StorageRules.File(name: name, content: content, bucket: bucket))
            }
            let errors = try rules.load(parsed).filter { $0.severity == .error }
            guard errors.isEmpty else {
                logger.warning("storage: rules not updated: \(errors.map(\.description).joined(separator: "; "))")
                return .json(
                    ["message": "There was an error updating rules, see logs for more details",
                     "errors": .array(errors.map { .string($0.description) })], status: 400)
            }
            return .json(["message": "Rules updated successfully"])
        case (.post, ["reset"]):
            uploads.reset()
            try store.reset()
            return Response(status: .ok)
        case (.post, ["export"]):
            let body = try await Self.jsonBody(of: request)
            guard let path = body["path"]?.stringValue, !path.isEmpty else {
                return .text("Export request body must include 'path'.", status: 400)
            }
            do {
                try StorageExport(store: store).write(to: URL(fileURLWithPath: path))
            } catch let refusal as StorageExport.Refusal {
                return .text(refusal.description, status: 400)
            }
            return Response(status: .ok)
        default:
            throw Self.error(404, "Not Found.")
        }
    }

    // MARK: Shared

    /// An error in the Firebase Storage shape, `{"error":{"code","message"}}`.
    static func error(_ code: Int, _ message: String) -> APIError {
        APIError(code: code, message: message, status: nil, reason: nil)
    }

    /// `http://host:port` as the client reached us (for upload URLs and links).
    static func base(of request: Request) -> String {
        "http://\(request.head.authority ?? "127.0.0.1")"
    }

    /// A path segment percent-encoded as `encodeURIComponent` does (so `/` is `%2F`).
    static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: componentAllowed) ?? text
    }

    private static let componentAllowed: CharacterSet = {
        var set = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        set.insert(charactersIn: "-_.!~*'()")
        return set
    }()

    /// A raw path segment (or several, joined by `/`) percent-decoded.
    static func decoded<S: StringProtocol>(_ raw: S) -> String {
        String(raw).percentDecoded ?? String(raw)
    }

    /// A small JSON body (`{}` when empty); a body that is not JSON is a 400.
    static func jsonBody(of request: Request, limit: Int = 16 << 20) async throws -> JSONValue {
        let bytes = try await UploadBody.collect(request.body, limit: limit)
        guard bytes.contains(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) else { return [:] }
        guard let json = try? JSONValue.parse(Data(bytes)), json.objectValue != nil else {
            throw error(400, "Invalid JSON payload received.")
        }
        return json
    }

    /// Why an object name is refused, if it is (GCS naming: 1–1024 bytes of UTF-8, no CR or LF, not `.` or
    /// `..`).
    static func nameProblem(_ name: String) -> String? {
        if name.isEmpty { return "Object name must not be empty." }
        if name.utf8.count > 1024 {
            return "The maximum object length is 1024 characters, but got a name with \(name.utf8.count) characters: ''\(name.prefix(32))...''"
        }
        if name == "." || name == ".." { return "Object name must not be '.' or '..'." }
        if name.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) {
            return "Object name must not contain carriage returns or line feeds."
        }
        return nil
    }

    /// Runs `body` with a new blob's writer; if it fails, the blob is removed (nothing half-written stays)
    /// and an upload error becomes its wire error.
    func writingBlob<Result>(_ body: (BlobWriter) async throws -> Result) async throws -> Result {
        let writer = try store.newBlob()
        do {
            return try await body(writer)
        } catch let error as UploadError {
            writer.discard()
            throw Self.wireError(error)
        } catch {
            writer.discard()
            throw error
        }
    }

    /// The upload errors as wire errors.
    static func wireError(_ error: UploadError) -> APIError {
        switch error {
        case .tooLarge(let limit): return Self.error(413, "The object exceeds the maximum upload size of \(limit) bytes.")
        case .badMultipart(let message): return Self.error(400, message)
        }
    }

    /// The current time.
    var now: Date { clock.now() }
}
