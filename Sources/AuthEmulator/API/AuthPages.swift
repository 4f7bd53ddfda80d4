import EmulatorCore
import EmulatorHTTP
import Hummingbird

/// The emulator's web pages: the OOB action landing page and the IdP sign-in widget.
enum AuthPages {
    /// A page response if `segments` names one of the emulator's pages.
    static func response(for request: Request, segments: [String], api: AuthAPI) async throws -> Response? {
        nil
    }
}
