import EmulatorCore
import HTTPTypes

/// One Auth API endpoint: method, Google-style path pattern, access rule and the operation it runs.
struct AuthRoute: Sendable {
    typealias RealmOperation = @Sendable (inout Realm, AuthCall) throws(APIError) -> JSONValue
    typealias ProjectOperation = @Sendable (inout ProjectState, AuthCall) throws(APIError) -> JSONValue

    enum Action: Sendable {
        /// Runs on the addressed project's (or tenant's) users.
        case realm(RealmOperation)
        /// Runs on the whole project (config, tenants).
        case project(ProjectOperation)
        /// A fixed answer that touches no state.
        case constant(JSONValue)
    }

    var method: HTTPRequest.Method
    var pattern: [Segment]
    var access: Access
    var action: Action

    /// A pattern segment: literal, `{name}`, or `{name}:suffix` (Google's custom verbs).
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String, suffix: String)
    }

    init(_ method: HTTPRequest.Method, _ path: String, _ access: Access, _ action: Action) {
        self.method = method
        self.access = access
        self.action = action
        self.pattern = path.split(separator: "/").map { part in
            guard part.hasPrefix("{"), let close = part.firstIndex(of: "}") else { return .literal(String(part)) }
            let name = String(part[part.index(after: part.startIndex)..<close])
            return .parameter(name, suffix: String(part[part.index(after: close)...]))
        }
    }

    /// The path parameters if `segments` match this route's pattern.
    func match(_ segments: [String]) -> [String: String]? {
        guard segments.count == pattern.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, part) in zip(segments, pattern) {
            switch part {
            case .literal(let literal):
                guard segment == literal else { return nil }
            case .parameter(let name, let suffix):
                guard segment.hasSuffix(suffix), segment.count > suffix.count else { return nil }
                parameters[name] = String(segment.dropLast(suffix.count))
            }
        }
        return parameters
    }
}
