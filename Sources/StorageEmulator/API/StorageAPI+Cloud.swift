import EmulatorCore
import Hummingbird

/// The GCS JSON API (admin, no rules): google-cloud-storage and the admin SDKs.
extension StorageAPI {
    func cloud(_ request: Request, segments: [String]) async throws -> Response {
        throw APIError.notImplemented("Not implemented: \(request.method) \(request.uri.path)")
    }
}
