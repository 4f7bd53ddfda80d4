import Foundation

/// The rules decisions of every emulator, newest last, for the Emulator UI's Requests page: the suite gives
/// one log to each emulator it runs with the UI, and the UI reads and follows it.
public typealias RequestLog = LiveLog<RequestLogEntry>

/// One rules decision, as the Emulator UI's Requests page shows it.
public struct RequestLogEntry: LiveLogEntry {
    /// Its place in the log (from 1, increasing).
    public var id: Int
    /// When it was decided.
    public var time: Date
    /// `firestore`, `storage` or `database`.
    public var service: String
    /// The rules method (`get`, `list`, `create`, `update`, `delete`, `read`, `write`, ...).
    public var method: String
    /// The path the rules saw.
    public var path: String
    /// The caller's uid, or nil when unauthenticated.
    public var uid: String?
    /// Whether the rules allowed it.
    public var allowed: Bool
    /// Why, in a line per statement considered (`firestore.rules:7:7 allow read: false`).
    public var explanation: String
    /// The rules files and the value each expression took in this decision, built when asked for
    /// (`{"rules": {"files": [{name, content}]}, "report": [...]}`, the coverage report's shape).
    public var detail: @Sendable () -> JSONValue

    /// Creates an entry; the log gives it its `id` when it is recorded.
    public init(
        service: String, method: String, path: String, uid: String?, allowed: Bool, explanation: String,
        time: Date = Date(), detail: @escaping @Sendable () -> JSONValue = { [:] }
    ) {
        self.id = 0
        self.time = time
        self.service = service
        self.method = method
        self.path = path
        self.uid = uid
        self.allowed = allowed
        self.explanation = explanation
        self.detail = detail
    }

    /// The entry as the UI API answers it (without the detail).
    public var json: JSONValue {
        [
            "id": .int(Int64(id)), "time": .string(time.iso8601WithMilliseconds), "service": .string(service),
            "method": .string(method), "path": .string(path), "uid": uid.map(JSONValue.string) ?? .null,
            "allowed": .bool(allowed), "explanation": .string(explanation),
        ]
    }
}
