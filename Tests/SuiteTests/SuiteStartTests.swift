import EmulatorCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import Suite
import Synchronization
import Testing

@Suite struct SuiteStartTests {
    @Test func startsOnFreePortsAndReportsThem() async throws {
        var config = SuiteConfig(projectID: "demo-suite")
        try config.apply(only: ["auth"], project: nil, host: nil, ports: ["auth=0", "hub=0"])
        let suite = try Suite(config: config)
        try await suite.start()
        let auth = try #require(suite.emulator(.auth))
        let hub = try #require(suite.emulator(.hub))
        #expect(auth.port != 0)
        #expect(hub.port != 0)
        #expect(suite.environment["FIREBASE_AUTH_EMULATOR_HOST"] == "127.0.0.1:\(auth.port)")
        #expect(suite.environment["FIREBASE_EMULATOR_HUB"] == "127.0.0.1:\(hub.port)")
        #expect(suite.environment["GCLOUD_PROJECT"] == "demo-suite")
        #expect(suite.environment["FIRESTORE_EMULATOR_HOST"] == nil)
        #expect(suite.readyTable.contains(Suite.readyLine))
        await suite.stop()
        #expect(suite.running.isEmpty)
    }

    @Test func theEmulatorUIListensAfterTheHubAndTheHubListsIt() async throws {
        var config = SuiteConfig(projectID: "demo-ui")
        try config.apply(only: ["auth"], project: nil, host: nil, ports: ["auth=0", "hub=0", "ui=0"], ui: true)
        let suite = try Suite(config: config)
        try await suite.start()
        let ui = try #require(suite.emulator(.ui))
        #expect(ui.port != 0)
        #expect(suite.readyTable.contains("View Emulator UI at http://127.0.0.1:\(ui.port)/"))
        let hub = try #require(suite.emulator(.hub))
        let (hubData, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(hub.port)/emulators")!)
        let emulators = try JSONValue.parse(hubData)
        #expect(emulators["ui"]?["port"] == .int(Int64(ui.port)))
        let (data, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(ui.port)/api/config")!)
        let answer = try JSONValue.parse(data)
        #expect(answer["projectId"] == "demo-ui")
        #expect(answer["auth"]?["port"] == .int(Int64(try #require(suite.emulator(.auth)).port)))
        await suite.stop()
    }

    @Test func whatTheDeveloperIsToldGoesToTheLogsUnderItsEmulator() throws {
        let told = Mutex<[String]>([])
        let suite = try Suite(config: SuiteConfig(projectID: "demo-logs")) { message in told.withLock { $0.append(message) } }
        suite.notify("To verify the email address a@example.com, follow this link: http://x", from: .auth)
        suite.notify("Received export request. Exporting data to /tmp/e.")
        #expect(told.withLock { $0.count } == 2)
        let lines = suite.logs.entries()
        #expect(lines.map(\.source) == ["auth", "hearth"])
        #expect(lines.first?.message == "To verify the email address a@example.com, follow this link: http://x")
    }

    @Test func portInUseNamesTheEmulator() async throws {
        var first = SuiteConfig(projectID: "demo-a")
        try first.apply(only: ["auth"], project: nil, host: nil, ports: ["auth=0", "hub=0"])
        let running = try Suite(config: first)
        try await running.start()
        defer { Task { await running.stop() } }
        let taken = try #require(running.emulator(.auth)?.port)
        var second = SuiteConfig(projectID: "demo-b")
        try second.apply(only: ["auth"], project: nil, host: nil, ports: ["auth=\(taken)", "hub=0"])
        await #expect(throws: SuiteStartError.self) { try await Suite(config: second).start() }
        do {
            try await Suite(config: second).start()
        } catch {
            #expect("\(error)" == "auth: port \(taken) on 127.0.0.1 is already in use")
        }
    }
}
