import EmulatorCore
import EmulatorHTTP
import Foundation
import Hummingbird

/// The Emulator Hub (default port 4400): tells tools which emulators run where, in the official JSON shape.
enum Hub {
    /// `GET /`, `GET /emulators`, `POST /_admin/export` and the checkpoints; other paths are 404.
    static func responder(suite: Suite) -> EmulatorResponder {
        EmulatorResponder { request, _ in
            let segments = request.pathSegments
            if request.method == .post, segments == ["_admin", "export"] {
                return await export(request, suite: suite)
            }
            if segments.starts(with: ["emulator", "v1", "checkpoints"]) {
                return try await checkpoints(request, segments.dropFirst(3), suite: suite)
            }
            guard request.method == .get || request.method == .head else {
                throw APIError.notFound("Not Found")
            }
            switch segments {
            case []:
                return .json(locator(suite: suite, includeAddress: true))
            case ["emulators"]:
                return .json(emulators(suite.running))
            default:
                throw APIError.notFound("Not Found")
            }
        }
    }

    /// `POST /_admin/export {path, initiatedBy?, targets?}`, as `emulators:export` and export-on-exit call it:
    /// exports the running emulators (or `targets`) to `path` and answers `{"message":"OK"}` when it is on
    /// disk. A browser page may not trigger it (any `Origin` header: 403). A target that cannot be used is a
    /// 400 and a failed export a 500, each with `{"message"}`, as the official hub answers.
    private static func export(_ request: Request, suite: Suite) async -> Response {
        func answer(_ message: String, _ status: Int) -> Response { .json(["message": .string(message)], status: status) }
        guard request.headers[.origin] == nil else { return answer("Export cannot be triggered by external callers.", 403) }
        guard let data = try? await request.collectBody(limit: 1 << 20), let body = try? JSONValue.parse(data),
            let path = body["path"]?.stringValue, !path.isEmpty
        else {
            return answer("Export request body must be a JSON object with a 'path'.", 400)
        }
        var targets: Set<EmulatorName>?
        if let names = body["targets"], names != .null {
            // firebase-tools sends every emulator firebase.json configures (functions, hosting, ...): the ones
            // without data are left out, as the official hub does.
            guard let list = names.arrayValue?.map(\.stringValue), !list.contains(nil) else {
                return answer("'targets' must be a list of emulator names (auth, firestore, database, storage).", 400)
            }
            targets = Set(list.compactMap { $0.flatMap(EmulatorName.init(rawValue:)) })
        }
        let (message, status) = await suite.exportRequested(to: path, only: targets)
        return answer(message, status)
    }

    /// The suite's checkpoints (Hearth only): `POST /emulator/v1/checkpoints/{name}` takes one,
    /// `POST .../{name}:restore` brings it back, `DELETE .../{name}` forgets it, `GET /emulator/v1/checkpoints`
    /// lists them (`{"checkpoints": [{name, createTime}]}`). Errors are Google's JSON (400, 404, 501).
    private static func checkpoints(_ request: Request, _ rest: ArraySlice<String>, suite: Suite) async throws -> Response {
        do {
            switch (request.method, rest.count) {
            case (.get, 0), (.head, 0):
                return .json(["checkpoints": .array(suite.checkpoints.map(\.json))])
            case (.post, 1):
                let segment = rest[rest.startIndex]
                if segment.hasSuffix(":restore") {
                    return .json(try await suite.restore(String(segment.dropLast(":restore".count))).json)
                }
                return .json(try await suite.checkpoint(segment).json)
            case (.delete, 1):
                let name = rest[rest.startIndex]
                guard await suite.deleteCheckpoint(name) else { throw CheckpointError(status: .notFound, message: "No checkpoint named '\(name)'.") }
                return .json([:])
            case (_, 0), (_, 1):
                throw APIError.notImplemented("Method \(request.method) is not served here.")
            default:
                throw APIError.notFound("Not Found")
            }
        } catch let error as CheckpointError {
            throw APIError(message: error.message, status: error.status)
        }
    }

    /// The locator: version, origins and pid (the locator file), plus host and port on `GET /`.
    static func locator(suite: Suite, includeAddress: Bool) -> JSONValue {
        guard let hub = suite.running.first(where: { $0.name == .hub }) else { return [:] }
        var object: [String: JSONValue] = [
            "version": .string(Suite.version),
            "origins": [.string("http://\(hub.connectAddress)")],
            "pid": .int(Int64(ProcessInfo.processInfo.processIdentifier)),
        ]
        if includeAddress {
            object["host"] = .string(hub.connectHost)
            object["port"] = .int(Int64(hub.port))
        }
        return .object(object)
    }

    /// `{"<name>": {name, host, port, pid, listen: [{address, family, port}]}}` for every running emulator.
    static func emulators(_ running: [RunningEmulator]) -> JSONValue {
        var result: [String: JSONValue] = [:]
        let pid = JSONValue.int(Int64(ProcessInfo.processInfo.processIdentifier))
        for emulator in running {
            let listen = emulator.listenHosts.map { host -> JSONValue in
                [
                    "address": .string(host), "family": .string(host.contains(":") ? "IPv6" : "IPv4"),
                    "port": .int(Int64(emulator.port)),
                ]
            }
            result[emulator.name.rawValue] = [
                "name": .string(emulator.name.rawValue),
                "host": .string(emulator.connectHost),
                "port": .int(Int64(emulator.port)),
                "pid": pid,
                "listen": .array(listen),
            ]
        }
        return .object(result)
    }
}
