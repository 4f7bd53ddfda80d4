import EmulatorCore
import EmulatorHTTP
import Foundation

/// One Auth API request, bound: its body, who sent it, and the project / tenant it addresses.
struct AuthCall: Sendable {
    var body: RequestBody
    var query: FormFields
    /// `Bearer owner` (or an OAuth access token): an Admin SDK call.
    var isAdmin: Bool
    var projectID: String
    var tenantID: String?
    var parameters: [String: String]
    var now: Date
    /// `http://host:port` of this emulator as the client reached it, for links.
    var origin: String

    /// Milliseconds since the epoch, as a string (`createdAt`, `lastLoginAt`).
    var nowMillisString: String { String(now.millisecondsSince1970) }
}

/// How a route may be called.
enum Access: Sendable {
    /// Client SDK call with `?key=`, or an admin call.
    case apiKey
    /// Admin only (`Authorization: Bearer owner`).
    case admin
    /// No credentials needed (emulator-only endpoints).
    case open
}
