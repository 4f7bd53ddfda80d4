import EmulatorCore
import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
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

    @Test func exportAndImportRunTheSuitesActionsWithTheirFolder() async throws {
        let asked = Mutex<[String]>([])
        let actions = EmulatorUI.Actions(
            export: { path in
                asked.withLock { $0.append("export " + path) }
                return ("OK", 200)
            },
            import: { path in
                asked.withLock { $0.append("import " + path) }
                return ("Import path '\(path)' does not exist.", 400)
            })
        let app = Application(responder: EmulatorUI.responder(requests: RequestLog(), actions: actions) { [:] })
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/export", method: .post, body: ByteBuffer(string: #"{"path":"/tmp/seed"}"#)) { response in
                #expect(response.status == .ok && String(buffer: response.body) == #"{"message":"OK"}"#)
            }
            try await client.execute(uri: "/api/import", method: .post, body: ByteBuffer(string: #"{"path":"/nope"}"#)) { response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body).contains("does not exist"))
            }
            try await client.execute(uri: "/api/import", method: .post, body: ByteBuffer(string: "{}")) { response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body).contains("Give the folder to import from"))
            }
            try await client.execute(uri: "/api/import", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
        #expect(asked.withLock { $0 } == ["export /tmp/seed", "import /nope"])
        let none = Application(responder: EmulatorUI.responder(requests: RequestLog()) { [:] })
        try await none.test(.router) { client in
            try await client.execute(uri: "/api/import", method: .post, body: ByteBuffer(string: #"{"path":"/x"}"#)) { response in
                #expect(response.status == .badRequest && String(buffer: response.body).contains("cannot import"))
            }
        }
    }
    @Test func databaseChildrenAsksTheSuiteWithItsParametersAndRefusesBadOnes() async throws {
        let asked = Mutex<[String]>([])
        let actions = EmulatorUI.Actions(databaseChildren: { path, namespace, limit in
            asked.withLock { $0.append("\(path) \(namespace ?? "-") \(limit)") }
            if path == "/bad" { throw APIError.invalidArgument("Invalid path") }
            return ["count": 0, "children": []]
        })
        let app = Application(responder: EmulatorUI.responder(requests: RequestLog(), actions: actions) { [:] })
        try await app.test(.router) { client in
            try await client.execute(uri: "/api/database/children?ns=demo&path=/a/b&limit=50", method: .get) { response in
                #expect(response.status == .ok && String(buffer: response.body) == #"{"children":[],"count":0}"#)
            }
            try await client.execute(uri: "/api/database/children", method: .get) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/api/database/children?path=/bad", method: .get) { response in
                #expect(response.status == .badRequest && String(buffer: response.body).contains("Invalid path"))
            }
            for limit in ["0", "1001", "x"] {
                try await client.execute(uri: "/api/database/children?limit=\(limit)", method: .get) { response in
                    #expect(response.status == .badRequest, "limit \(limit)")
                }
            }
            try await client.execute(uri: "/api/database/children", method: .post) { response in
                #expect(response.status == .notFound)
            }
        }
        #expect(asked.withLock { $0 } == ["/a/b demo 50", "/ - 200", "/bad - 200"])
        let none = Application(responder: EmulatorUI.responder(requests: RequestLog()) { [:] })
        try await none.test(.router) { client in
            try await client.execute(uri: "/api/database/children", method: .get) { response in
                #expect(response.status == .badRequest && String(buffer: response.body).contains("not running"))
            }
        }
    }
}
