import EmulatorCore
import EmulatorHTTP
import Foundation
import Hummingbird

/// The Emulator Hub (default port 4400): tells tools which emulators run where, in the official JSON shape.
enum Hub {
    /// `GET /` and `GET /emulators`; other paths are 404.
    static func responder(suite: Suite) -> EmulatorResponder {
        EmulatorResponder { request, _ in
            let segments = request.pathSegments
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
            let family = emulator.host.contains(":") ? "IPv6" : "IPv4"
            result[emulator.name.rawValue] = [
                "name": .string(emulator.name.rawValue),
                "host": .string(emulator.connectHost),
                "port": .int(Int64(emulator.port)),
                "pid": pid,
                "listen": [
                    ["address": .string(emulator.host), "family": .string(family), "port": .int(Int64(emulator.port))]
                ],
            ]
        }
        return .object(result)
    }
}
