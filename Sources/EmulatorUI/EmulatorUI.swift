import EmulatorCore
import EmulatorHTTP
import Foundation
import Hummingbird

/// The Emulator UI (default port 4000): a web app, written in plain HTML, CSS and JavaScript modules and
/// embedded in the binary (`WebAsset`), that shows and changes every emulator's data through the
/// emulators' own endpoints, and the small API it needs beyond them:
/// - `GET /api/config`: the project and where each emulator listens, in the official UI's shape
///   (`{projectId, experiments, analytics, <name>: {name, host, port, …}}`, the hub's `/emulators` entries).
/// - `GET /api/requests`: the rules decisions kept (`{"requests": [{id, time, service, method, path, uid,
///   allowed, explanation}]}`, oldest first; `?after=ID` for the newer ones only); with
///   `Accept: text/event-stream`, those and then each new one as a server-sent `request` event.
///   `GET /api/requests/ID` is one of them with its `detail`: the rules files and what each expression
///   evaluated to (the coverage report's shape, with `valueText`). `DELETE /api/requests` forgets them.
/// - `GET /api/logs` (`{"logs": [{id, time, level, source, message}]}`, or server-sent `line` events) and
///   `DELETE /api/logs`: the suite's log lines, in the same way.
/// - `POST /api/export {"path"}`: exports every emulator's data to that folder, as the hub's
///   `/_admin/export` does (which refuses pages); answers `{"message"}` (200 when done, else 400 or 500).
/// - `POST /api/import {"path"}`: imports an export folder (the official layout, as `--import` reads it) into
///   the running emulators: Auth's users, Firestore's databases and the Realtime Database's namespaces the
///   export holds are replaced (clients listening see the changes), its Storage objects are added or
///   replace those of the same name; answers as the export does.
/// - `GET /api/database/children?ns=NS&path=/a/b&limit=200`: what the Realtime Database page shows of a node
///   in one read: `{"count", "children": [{"key", "value"} or {"key", "count"}]}`, the first `limit` (at
///   most 1,000) children in key order, each a leaf's value (a string past 200 characters cut, with
///   `"truncated": true`) or how many children it has; a leaf answers its `value`. 400 in Google's error
///   envelope for a bad limit, or a namespace or path no database could have.
///
/// Every other `GET` serves the app: `/` the page, `/assets/<file>` its files.
public enum EmulatorUI {
    /// How often a quiet event stream sends a comment, so proxies and browsers keep it open.
    static let keepAliveInterval: Duration = .seconds(15)

    /// A responder for the UI; `config` answers `/api/config` (it is asked on each request, so it sees the
    /// emulators as they run), `requests` holds the rules decisions the Requests page shows and `logs` the
    /// lines the Logs page shows.
    public static func responder(
        requests: RequestLog, logs: SuiteLog = SuiteLog(), actions: Actions = Actions(),
        config: @escaping @Sendable () -> JSONValue
    ) -> EmulatorResponder {
        EmulatorResponder { request, _ in
            let segments = request.pathSegments
            if segments == ["api", "export"] || segments == ["api", "import"] {
                guard request.method == .post else { throw APIError.notFound("Not Found") }
                return await transfer(request, segments[1], segments[1] == "export" ? actions.export : actions.import)
            }
            if segments.starts(with: ["api", "requests"]) {
                return try liveLogAPI(request, segments.dropFirst(2), requests, name: "requests", event: "request") { entry in
                    guard case .object(var object) = entry.json else { return entry.json }
                    object["detail"] = entry.detail()
                    return .object(object)
                }
            }
            if segments.starts(with: ["api", "logs"]) {
                return try liveLogAPI(request, segments.dropFirst(2), logs, name: "logs", event: "line") { $0.json }
            }
            if segments == ["api", "database", "children"] {
                guard request.method == .get else { throw APIError.notFound("Not Found") }
                return .json(try databaseChildren(request, actions.databaseChildren))
            }
            guard request.method == .get || request.method == .head else {
                throw APIError.notFound("Not Found")
            }
            switch segments.first {
            case nil, "index.html":
                return asset("index.html")!
            case "api":
                guard segments == ["api", "config"] else { throw APIError.notFound("Not Found") }
                return .json(config())
            case "assets":
                guard segments.count == 2, let response = asset(segments[1]) else { throw APIError.notFound("Not Found") }
                return response
            default:
                throw APIError.notFound("Not Found")
            }
        }
    }

    /// The UI's `/api/config`: `projectId`, no experiments, no analytics, and `emulators` (the hub's
    /// `/emulators` object) merged in.
    public static func config(projectID: String, emulators: JSONValue) -> JSONValue {
        var object: [String: JSONValue] = [
            "projectId": .string(projectID), "experiments": [], "analytics": false,
        ]
        for (name, entry) in emulators.objectValue ?? [:] { object[name] = entry }
        return .object(object)
    }

    /// What the UI can ask of the suite beyond the emulators' own endpoints.
    public struct Actions: Sendable {
        /// Moves every emulator's data to or from a folder; answers the message to show and the HTTP status.
        public typealias Transfer = @Sendable (_ path: String) async -> (message: String, status: Int)

        /// Exports to a folder (`POST /api/export`).
        public var export: Transfer?
        /// Imports from an export folder (`POST /api/import`).
        public var `import`: Transfer?
        /// Reads what the Realtime Database page shows of a node: the path, the namespace (nil: the default)
        /// and how many children; the answer's JSON. What it throws is answered as errors are (an `APIError`
        /// in Google's envelope).
        public typealias Browse = @Sendable (_ path: String, _ namespace: String?, _ limit: Int) throws -> JSONValue

        /// The children of a Realtime Database node (`GET /api/database/children`).
        public var databaseChildren: Browse?

        /// Actions; none by default.
        public init(export: Transfer? = nil, import: Transfer? = nil, databaseChildren: Browse? = nil) {
            self.export = export
            self.import = `import`
            self.databaseChildren = databaseChildren
        }
    }

    /// The most children `GET /api/database/children` answers at once.
    static let databaseChildrenLimit = 1000

    private static func databaseChildren(_ request: Request, _ browse: Actions.Browse?) throws -> JSONValue {
        guard let browse else { throw APIError.invalidArgument("The Realtime Database is not running.") }
        let parameters = request.uri.queryParameters
        let limit = parameters["limit"].map { Int(String($0)) } ?? 200
        guard let limit, (1...databaseChildrenLimit).contains(limit) else {
            throw APIError.invalidArgument("limit is from 1 to \(databaseChildrenLimit).")
        }
        return try browse(parameters["path"].map(String.init) ?? "/", parameters["ns"].map(String.init), limit)
    }

    private static func transfer(_ request: Request, _ name: String, _ action: Actions.Transfer?) async -> Response {
        func answer(_ message: String, _ status: Int) -> Response { .json(["message": .string(message)], status: status) }
        guard let action else { return answer("This suite cannot \(name).", 400) }
        guard let data = try? await request.collectBody(limit: 1 << 16), let body = try? JSONValue.parse(data),
            let path = body["path"]?.stringValue, !path.isEmpty
        else {
            return answer("Give the folder to \(name) \(name == "export" ? "to" : "from"): {\"path\": \"...\"}.", 400)
        }
        let (message, status) = await action(path)
        return answer(message, status)
    }

    /// `GET` (JSON, or server-sent `event`s with `Accept: text/event-stream`), `GET /ID` (`one` of the entry)
    /// and `DELETE` of a live log, answered as `{"<name>": [...]}`.
    private static func liveLogAPI<Entry>(
        _ request: Request, _ rest: ArraySlice<String>, _ log: LiveLog<Entry>, name: String, event: String,
        one: (Entry) -> JSONValue
    ) throws -> Response {
        switch (request.method, rest.count) {
        case (.get, 0) where request.headers[.accept]?.contains("text/event-stream") == true:
            return eventStream(log, event: event)
        case (.get, 0):
            let after = request.uri.queryParameters["after"].flatMap { Int(String($0)) } ?? 0
            return .json([name: .array(log.entries(after: after).map(\.json))])
        case (.get, 1):
            guard let id = Int(rest[rest.startIndex]), let entry = log.entry(id) else {
                throw APIError.notFound("No entry \(rest[rest.startIndex]) is kept.")
            }
            return .json(one(entry))
        case (.delete, 0):
            log.clear()
            return .json([:])
        default:
            throw APIError.notFound("Not Found")
        }
    }

    /// The entries kept, then each new one, as server-sent `event`s; a comment every `keepAliveInterval`.
    private static func eventStream<Entry>(_ log: LiveLog<Entry>, event: String) -> Response {
        let body = ResponseBody { writer in
            let (events, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(1000))
            let follow = Task {
                for await entry in log.follow() { continuation.yield("event: \(event)\ndata: \(entry.json.serialized())\n\n") }
            }
            let keepAlive = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: keepAliveInterval)
                    continuation.yield(": keep-alive\n\n")
                }
            }
            defer {
                follow.cancel()
                keepAlive.cancel()
            }
            for await event in events {
                do {
                    try await writer.write(ByteBuffer(string: event))
                } catch {
                    break
                }
            }
            try? await writer.finish(nil)
        }
        return Response(
            status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
    }

    /// A folder to serve the web app's files from instead of the embedded copy (`HEARTH_UI_WEB`, for working
    /// on `Sources/EmulatorUI/Web` without rebuilding); only files the binary embeds are served from it.
    static let webFolder: URL? = ProcessInfo.processInfo.environment["HEARTH_UI_WEB"].map { URL(fileURLWithPath: $0) }

    private static func asset(_ name: String) -> Response? {
        guard let asset = WebAsset.all[name] else { return nil }
        let text = webFolder.flatMap { try? String(contentsOf: $0.appendingPathComponent(name), encoding: .utf8) }
        // Served fresh each time: the files change with the binary, and a stale module breaks the app.
        return .uncached(text ?? asset.text, contentType: asset.contentType)
    }
}

/// One file of the web app, embedded in the binary.
struct WebAsset: Sendable {
    /// Its `Content-Type`.
    var contentType: String
    /// Its text.
    var text: String
}
