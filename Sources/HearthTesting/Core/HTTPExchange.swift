import AsyncHTTPClient
import EmulatorCore
import Foundation
import NIOCore
import NIOHTTP1

/// One HTTP request and its whole response, sent with AsyncHTTPClient's shared client. Every REST client of
/// HearthTesting sends through this.
struct HTTPExchange: Sendable {
    /// A received response.
    struct Response: Sendable {
        /// The status code.
        var status: Int
        /// The headers, as received.
        var headers: HTTPHeaders
        /// The body.
        var body: Data

        /// The body as JSON (null when empty or not JSON).
        var json: JSONValue { (try? JSONValue.parse(body)) ?? .null }

        /// A `ClientError` for a response that is not 2xx: Google's `{"error": {"message", "status"}}`, the
        /// Realtime Database's `{"error": "..."}`, an emulator's `{"message", "errors": [...]}` (one line
        /// each), or the bare body.
        var error: ClientError? {
            guard !(200..<300).contains(status) else { return nil }
            let json = self.json
            let details = json["errors"]?.arrayValue?.compactMap(\.stringValue) ?? []
            let message =
                json["error"]?["message"]?.stringValue ?? json["error"]?.stringValue
                ?? json["message"]?.stringValue.map { ([$0] + details).joined(separator: "\n") }
                ?? String(decoding: body, as: UTF8.self)
            let code = json["error"]?["status"]?.stringValue.flatMap(ClientError.Code.init(rawValue:))
                ?? ClientError.code(httpStatus: status)
            return ClientError(code, status: status, message: message)
        }

        /// The response, or its `ClientError`.
        func checked() throws(ClientError) -> Response {
            if let error { throw error }
            return self
        }
    }

    /// How long one exchange may take before it fails as `unavailable`.
    static let timeout: TimeAmount = .seconds(60)

    /// Sends `method url` with `headers` and `body`. A connection failure is a `ClientError` with code
    /// `unavailable`.
    static func send(
        _ method: HTTPMethod, _ url: String, headers: [(String, String)] = [], body: Data? = nil
    ) async throws(ClientError) -> Response {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: timeout)
            let bytes = try await response.body.collect(upTo: .max)
            return Response(status: Int(response.status.code), headers: response.headers, body: Data(bytes.readableBytesView))
        } catch {
            throw ClientError(.unavailable, message: "\(method) \(url): \(error)")
        }
    }

    /// Sends `body` as JSON.
    static func send(
        _ method: HTTPMethod, _ url: String, headers: [(String, String)] = [], json: JSONValue
    ) async throws(ClientError) -> Response {
        try await send(
            method, url, headers: headers + [("Content-Type", "application/json")], body: Data(json.serialized().utf8))
    }
}

extension String {
    /// The string percent-encoded for one URL path segment or query value (RFC 3986 unreserved characters
    /// stay as they are; `/` is encoded).
    var urlComponentEncoded: String {
        addingPercentEncoding(withAllowedCharacters: .urlUnreservedCharacters) ?? self
    }
}

extension CharacterSet {
    /// RFC 3986's unreserved characters: `A-Z a-z 0-9 - . _ ~`.
    static let urlUnreservedCharacters = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
