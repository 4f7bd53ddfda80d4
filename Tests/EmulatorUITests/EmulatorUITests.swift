import EmulatorCore
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import EmulatorUI

/// The Emulator UI's server: the embedded web app is the one in `Web/`, and its routes.
@Suite struct EmulatorUITests {
    /// `Sources/EmulatorUI/Web`, found from this file.
    static let webFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/EmulatorUI/Web")

    @Test func theEmbeddedFilesAreTheWebFolderRunScriptsGenerateUIAssetsIfNot() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.webFolder.path).sorted()
        #expect(names == WebAsset.all.keys.sorted())
        for name in names {
            let text = try String(contentsOf: Self.webFolder.appendingPathComponent(name), encoding: .utf8)
            #expect(WebAsset.all[name]?.text == text, "\(name) changed since scripts/generate-ui-assets ran")
        }
    }

    @Test func servesThePageItsFilesAndTheConfig() async throws {
        let config = EmulatorUI.config(
            projectID: "demo-ui", emulators: ["auth": ["name": "auth", "host": "127.0.0.1", "port": 9099]])
        let app = Application(responder: EmulatorUI.responder(requests: RequestLog()) { config })
        try await app.test(.router) { client in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                #expect(String(buffer: response.body).contains("<script type=\"module\" src=\"/assets/app.js\">"))
            }
            try await client.execute(uri: "/assets/app.js", method: .get) { response in
                #expect(response.headers[.contentType] == "text/javascript; charset=utf-8")
                #expect(response.headers[.cacheControl] == "no-store")
            }
            try await client.execute(uri: "/api/config", method: .get) { response in
                let json = try JSONValue.parse(Data(String(buffer: response.body).utf8))
                #expect(json["projectId"] == "demo-ui" && json["analytics"] == false)
                #expect(json["auth"]?["port"] == 9099)
            }
            for (uri, method) in [("/assets/nope.js", HTTPRequest.Method.get), ("/api/other", .get), ("/", .post)] {
                try await client.execute(uri: uri, method: method) { response in
                    #expect(response.status == .notFound, "\(method) \(uri)")
                }
            }
        }
    }

    @Test func answersTheRequestLogAndOneEntryWithItsDetail() async throws {
        let log = RequestLog()
        log.record(
            RequestLogEntry(
                service: "storage", method: "create", path: "/b/bucket/o/a.pdf", uid: "alice", allowed: false,
                explanation: "storage.rules:5:7 allow create: false", detail: { ["report": []] }))
        let app = Application(responder: EmulatorUI.responder(requests: log) { [:] })
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/requests", method: .get) { response in
                let json = try JSONValue.parse(Data(String(buffer: response.body).utf8))
                let first = json["requests"]?.arrayValue?.first
                #expect(first?["path"] == "/b/bucket/o/a.pdf")
                #expect(first?["allowed"] == false && first?["uid"] == "alice")
            }
            try await client.execute(uri: "/api/requests?after=1", method: .get) { response in
                let json = try JSONValue.parse(Data(String(buffer: response.body).utf8))
                #expect(json["requests"] == [])
            }
            try await client.execute(uri: "/api/requests/1", method: .get) { response in
                let json = try JSONValue.parse(Data(String(buffer: response.body).utf8))
                #expect(json["detail"] == ["report": []] && json["method"] == "create")
            }
            try await client.execute(uri: "/api/requests", method: .delete) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/api/requests/1", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test func answersTheLogLines() async throws {
        let logs = SuiteLog()
        logs.record(LogLine(level: "notice", source: "auth", message: "To sign in as a@example.com, follow this link: …"))
        let app = Application(responder: EmulatorUI.responder(requests: RequestLog(), logs: logs) { [:] })
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/logs", method: .get) { response in
                let json = try JSONValue.parse(Data(String(buffer: response.body).utf8))
                let first = json["logs"]?.arrayValue?.first
                #expect(first?["source"] == "auth" && first?["level"] == "notice" && first?["id"] == 1)
            }
        }
    }
}
