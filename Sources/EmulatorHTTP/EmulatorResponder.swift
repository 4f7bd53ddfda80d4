import EmulatorCore
import Foundation
import Hummingbird
import Logging
import NIOCore

/// The responder every emulator's HTTP edge runs behind: the local-access guard (`LocalAccess`: requests
/// for a foreign host name or from a foreign page are refused with 403 before anything runs), CORS, then the
/// emulator's handler, with every thrown error rendered in Google's wire format: a request the client broke
/// (a body cut short, bad chunked framing) is a 400, and an unexpected error is a logged 500, never a crash.
public struct EmulatorResponder: HTTPResponder {
    /// The context type.
    public typealias Context = EmulatorContext

    /// Handles a request that is not a CORS preflight.
    public typealias Handler = @Sendable (Request, EmulatorContext) async throws -> Response

    let cors: CORSPolicy
    let handler: Handler
    /// Which hosts and origins are served; `EmulatorServer` sets it from the host it listens on.
    var access = LocalAccess()

    /// Creates a responder.
    public init(cors: CORSPolicy = CORSPolicy(), handler: @escaping Handler) {
        self.cors = cors
        self.handler = handler
    }

    /// Answers preflights, calls the handler, renders errors and adds CORS headers.
    public func respond(to request: Request, context: EmulatorContext) async throws -> Response {
        if let refusal = access.refusal(host: request.head.authority, origin: request.headers[.origin]) {
            let wire = APIError(message: refusal, status: .permissionDenied)
            return .json(wire.json, status: wire.code)
        }
        if let preflight = cors.preflightResponse(to: request) { return preflight }
        var response: Response
        do {
            response = try await handler(request, context)
        } catch let error as APIError {
            response = .json(error.json, status: error.code)
        } catch {
            if let fault = ClientFault(error) {
                let wire = APIError.invalidArgument(fault.message)
                response = .json(wire.json, status: wire.code)
                response.headers[.connection] = "close"
            } else {
                context.logger.error("unexpected error handling \(request.method) \(request.uri.path): \(error)")
                let wire = APIError.internal("Internal error: \(error)")
                response = .json(wire.json, status: wire.code)
            }
        }
        cors.decorate(&response, for: request)
        if Self.asksToClose(request) {
            // The connection closes after this response; saying so keeps a client from sending its next
            // request on it (HTTP/1.1 asks a server to echo `close`).
            response.headers[.connection] = "close"
        }
        return response
    }

    /// Whether `request` carries the `close` connection option.
    static func asksToClose(_ request: Request) -> Bool {
        guard let connection = request.headers[.connection] else { return false }
        return connection.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "close" }
    }
}
