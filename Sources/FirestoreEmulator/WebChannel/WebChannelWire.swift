import EmulatorCore
import EmulatorHTTP
import Foundation
import GRPCCore

/// WebChannel's wire format (BrowserChannel version 8, as Closure's `WireV8` and `ChannelRequest` read and
/// write it).
enum WebChannelWire {
    /// A forward-channel body: `count=N&ofs=K&req0___data__=<json>&...`, with the handshake's `headers`
    /// field (the web SDK sends its `Authorization` there, not as an HTTP header, to avoid a preflight).
    struct ForwardBody: Sendable, Equatable {
        /// The maps' JSON texts, in map-id order.
        var maps: [String]
        /// The map id of the first map.
        var offset: Int
        /// The headers of the `headers` field, names lower-cased.
        var headers: [String: String]

        /// Reads `text`, an `application/x-www-form-urlencoded` body. A map that is not raw JSON (Closure
        /// sends `reqN_type=_badmap` for a message it could not encode) is skipped.
        init(parsing text: String) {
            var fields: [String: String] = [:]
            for (name, value) in FormFields(parsing: text).pairs where fields[name] == nil { fields[name] = value }
            let count = fields["count"].flatMap { Int($0) } ?? 0
            offset = fields["ofs"].flatMap { Int($0) } ?? 0
            maps = (0..<max(0, min(count, 1_000))).compactMap { fields["req\($0)___data__"] }
            headers = [:]
            for line in (fields["headers"] ?? "").split(whereSeparator: \.isNewline) {
                guard let colon = line.firstIndex(of: ":") else { continue }
                let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
                headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
    }

    /// `text` as one chunk: its length in UTF-16 code units (what the browser's `responseText` counts),
    /// a newline, the text.
    static func chunk(_ text: String) -> String {
        "\(text.utf16.count)\n\(text)"
    }

    /// The handshake's answer: array 0, `["c", session id, host prefix, version 8, server version,
    /// keepalive ms]` (the client waits 1.5 × keepalive for back-channel data).
    static func handshake(sessionID: String) -> String {
        chunk(#"[[0,["c","\#(sessionID)","",8,14,\#(WebChannelStream.keepalive.components.seconds * 1000)]]]"#)
    }

    /// The payload that ends a stream with `error`: its status (a `FirestoreError` mapped as gRPC maps it),
    /// else INTERNAL.
    static func errorPayload(ending error: any Error) -> String {
        switch error {
        case let error as RPCError: errorPayload(error)
        case let error as FirestoreError: errorPayload(RPCError(error))
        default: errorPayload(RPCError(code: .internalError, message: "\(error)"))
        }
    }

    /// The payload of a stream error: `[{"error":{"code","message","status"}}]`; the web SDK maps `status`
    /// and ends the stream with the message.
    static func errorPayload(_ error: RPCError) -> String {
        let status = GoogleStatus.allCases.first { $0.grpcCode == error.code.rawValue } ?? .unknown
        let body: JSONValue = [
            "error": ["code": .int(Int64(status.grpcCode)), "message": .string(error.message), "status": .string(status.rawValue)]
        ]
        return "[" + body.serialized() + "]"
    }
}
