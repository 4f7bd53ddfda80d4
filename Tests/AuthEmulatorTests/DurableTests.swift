import DataDirectory
import EmulatorCore
import Foundation
import HTTPTypes
import Synchronization
import Testing

@testable import AuthEmulator

/// A data folder (`--data-dir`): what the API changes is there when an emulator starts again on the folder, and a
/// change the folder refuses is not made.
@Suite struct DurableTests {
    /// Runs `body` with an emulator on the data folder `folder` (on the fixed clock, so TOTP codes match), then lets
    /// go of both: the next call opens the folder again, as a restart does.
    static func withEmulator(
        _ folder: URL, _ body: @Sendable (AuthEmulator, AuthTestClient.Session) async throws -> Void
    ) async throws {
        let store = try DataDirectory(path: folder.path)
        defer { store.close() }  // as a stopped suite does; the store's deinit may come after the next open
        let emulator = try AuthEmulator(projectID: AuthTestClient.projectID, port: 0, clock: ExportTests.clock, durable: store)
        try await AuthTestClient(emulator: emulator).run { session in try await body(emulator, session) }
    }

    @Test func aRestartBringsBackUsersTenantsAndConfig() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let state = Mutex<(seeded: SeededAuth, views: [JSONValue], gone: JSONValue)?>(nil)
        try await Self.withEmulator(folder) { _, session in
            let seeded = try await session.seed()
            let gone = try await session.signUp(email: "gone@example.com")["localId"] ?? ""
            let deleted = try await session.call("\(adminProject)/accounts:delete", ["localId": gone], admin: true)
            #expect(deleted.status == 200, "\(deleted.json)")
            let dropped = try #require(try await session.createTenant(["allowPasswordSignup": true])["tenantId"]?.stringValue)
            _ = try await session.call(
                "accounts:signUp", ["email": "d@example.com", "password": "password1", "tenantId": .string(dropped)])
            #expect(try await session.v2(.delete, "tenants/\(dropped)").status == 200)
            let renamed = try await session.v2(
                .patch, "tenants/\(seeded.tenantID)?updateMask=displayName", ["displayName": "Store"])
            #expect(renamed.status == 200, "\(renamed.json)")
            let views = try await session.snapshot()
            state.withLock { $0 = (seeded, views, gone) }
        }
        let (seeded, before, gone) = try #require(state.withLock { $0 })
        #expect(before.contains { $0["tenants"]?.arrayValue?.first?["displayName"] == "Store" })
        try await Self.withEmulator(folder) { _, session in
            #expect(try await session.snapshot() == before)
            let lookup = try await session.call("\(adminProject)/accounts:lookup", ["localId": [gone]], admin: true)
            #expect(lookup.json["users"] == nil, "a deleted user stays deleted: \(lookup.json)")
            try await session.checkSignIns(seeded)
        }
    }

    @Test func importsRestoresAndResetsAreKept() async throws {
        let folder = try temporaryFolder()
        let export = try temporaryFolder()
        defer {
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(at: export)
        }
        try ExportTests.officialExport.write(to: export)
        try await Self.withEmulator(folder) { emulator, session in
            _ = try await session.signUp(email: "kept@example.com")
            let checkpoint = await emulator.checkpoint()
            _ = try await session.signUp(email: "dropped@example.com")
            _ = try await session.createTenant(["displayName": "Dropped"])
            try await emulator.restore(checkpoint)
        }
        try await Self.withEmulator(folder) { emulator, session in
            let users = try await session.listUsers("maxResults=-1")
            #expect(users.json["users"]?.arrayValue?.compactMap { $0["email"]?.stringValue } == ["kept@example.com"])
            #expect(try await session.v2(.get, "tenants").json == ["tenants": []])
            try await emulator.importData(from: export, progress: TransferProgress())
        }
        try await Self.withEmulator(folder) { emulator, session in
            #expect(try await session.listUsers("maxResults=-1").localIds == ["123"])
            #expect(try await session.listUsers(tenant: "t1").localIds == ["t1user"])
            let tenants = try await session.v2(.get, "tenants").json["tenants"]?.arrayValue ?? []
            #expect(tenants.compactMap { $0["tenantId"]?.stringValue } == ["t1", "t2"])
            #expect(try await session.request(.get, ExportTests.configPath).json == ExportTests.changedConfig)
            let signIn = try await session.call(
                "accounts:signInWithPassword", ["email": "foo@example.com", "password": "testing"])
            #expect(signIn.json["localId"] == "123", "\(signIn.json)")
            try await emulator.reset()
        }
        try await Self.withEmulator(folder) { _, session in
            let users = try await session.listUsers("maxResults=-1")
            #expect(users.localIds == [])
            #expect(try await session.v2(.get, "tenants").json == ["tenants": []])
            #expect(try await session.request(.get, ExportTests.configPath).json == ExportTests.defaultConfig)
        }
    }

    @Test func aChangeTheFolderRefusesIsNotMade() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = RefusingStore(try DataDirectory(path: folder.path))
        let emulator = try AuthEmulator(projectID: AuthTestClient.projectID, port: 0, durable: store)
        try await AuthTestClient(emulator: emulator).run { session in
            let kept = try await session.signUp(email: "kept@example.com")
            let before = try await session.snapshot()
            store.refuses.store(true, ordering: .relaxed)
            let signUp = try await session.call("accounts:signUp", ["email": "new@example.com", "password": "password1"])
            #expect(signUp.status == 500)
            #expect(signUp.errorMessage?.hasPrefix("INTERNAL_ERROR : ((The change could not be stored: full") == true)
            let update = try await session.call(
                "\(adminProject)/accounts:update", ["localId": kept["localId"] ?? "", "displayName": "Renamed"], admin: true)
            #expect(update.status == 500)
            let tenantUser = try await session.call(
                "accounts:signUp", ["email": "t@example.com", "password": "password1", "tenantId": "implicit"])
            #expect(tenantUser.status == 500)
            let cleared = try await session.request(.delete, "/emulator/v1/\(adminProject)/accounts")
            #expect(cleared.status == 500)
            #expect(try await session.v2(.post, "tenants", ["displayName": "No"]).status == 500)
            let config = try await session.request(.patch, ExportTests.configPath, body: ExportTests.changedConfig)
            #expect(config.status == 500)
            #expect(try await session.snapshot() == before)
            await #expect(throws: (any Error).self) { try await emulator.reset() }
            #expect(try await session.snapshot() == before)
        }
    }
}

/// A data folder that refuses every write once `refuses` is set, as a full disk would.
final class RefusingStore: DurableStore {
    let base: DataDirectory
    let refuses = Atomic(false)

    init(_ base: DataDirectory) {
        self.base = base
    }

    func write(_ changes: some Sequence<DurableChange>) throws(DurableStoreError) {
        if refuses.load(ordering: .relaxed) { throw DurableStoreError("full") }
        try base.write(changes)
    }

    func scanBytes(_ space: String, _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Void) throws {
        try base.scanBytes(space, body)
    }

    func spaces(prefix: String) throws(DurableStoreError) -> [String] { try base.spaces(prefix: prefix) }

    var filesFolder: String { base.filesFolder }
}
