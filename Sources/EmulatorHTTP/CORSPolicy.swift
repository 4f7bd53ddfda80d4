import HTTPTypes
import Hummingbird

/// CORS as the official emulators do it: reflect the origin and whatever headers the browser asks for.
public struct CORSPolicy: Sendable {
    /// Response headers a browser script may read.
    public var exposedHeaders: [String] {
        didSet { exposedList = exposedHeaders.joined(separator: ", ") }
    }
    /// `exposedHeaders` as the header's value, joined once rather than for every response.
    private var exposedList: String
    /// Whether to answer `Access-Control-Allow-Credentials: true`, for clients that send `withCredentials`
    /// requests (the Firestore web SDK).
    public var allowsCredentials: Bool

    /// Creates a policy exposing `exposedHeaders`.
    public init(exposedHeaders: [String] = [], allowsCredentials: Bool = false) {
        self.exposedHeaders = exposedHeaders
        exposedList = exposedHeaders.joined(separator: ", ")
        self.allowsCredentials = allowsCredentials
    }

    /// The response to a preflight `OPTIONS` request, or `nil` if `request` is not one.
    func preflightResponse(to request: Request) -> Response? {
        guard request.method == .options, let origin = request.headers[.origin],
            request.headers[.accessControlRequestMethod] != nil
        else { return nil }
        var headers: HTTPFields = [
            .accessControlAllowOrigin: origin,
            .accessControlAllowMethods: "GET,HEAD,PUT,PATCH,POST,DELETE",
            .accessControlMaxAge: "86400",
            .vary: "Origin, Access-Control-Request-Headers",
            .contentLength: "0",
        ]
        if let requested = request.headers[.accessControlRequestHeaders] {
            headers[.accessControlAllowHeaders] = requested
        }
        if allowsCredentials { headers[.accessControlAllowCredentials] = "true" }
        if request.headers[.accessControlRequestPrivateNetwork] == "true" {
            headers[.accessControlAllowPrivateNetwork] = "true"
        }
        return Response(status: .noContent, headers: headers)
    }

    /// Adds the CORS headers of a simple (non-preflight) response.
    func decorate(_ response: inout Response, for request: Request) {
        guard let origin = request.headers[.origin] else { return }
        decorate(&response.headers, origin: origin)
    }

    /// Adds the CORS headers of a simple response to a request from `origin`.
    func decorate(_ fields: inout HTTPFields, origin: String) {
        fields[.accessControlAllowOrigin] = origin
        fields[.vary] = "Origin"
        if allowsCredentials { fields[.accessControlAllowCredentials] = "true" }
        if !exposedList.isEmpty { fields[.accessControlExposeHeaders] = exposedList }
    }
}

extension HTTPField.Name {
    static let accessControlRequestPrivateNetwork = Self("Access-Control-Request-Private-Network")!
    static let accessControlAllowPrivateNetwork = Self("Access-Control-Allow-Private-Network")!
}
