import EmulatorCore
import NIOHTTP1
import Foundation

/// Loading rules and clearing data, through the emulators' own endpoints (the ones rules-unit-testing and
/// firebase-tools call), so the same code serves an in-process suite and an attached one.
extension RulesTestEnvironment {
    /// Loads `rules` as the project's Firestore rules (`PUT /emulator/v1/projects/{p}:securityRules`).
    public func loadFirestoreRules(_ rules: String) async throws {
        let firestore = try emulators.address(of: .firestore)
        let body: JSONValue = ["rules": ["files": [["name": "firestore.rules", "content": .string(rules)]]]]
        _ = try await HTTPExchange.send(
            .PUT, "\(firestore.baseURL)/emulator/v1/projects/\(projectID.urlComponentEncoded):securityRules",
            json: body
        ).checked()
    }

    /// Loads `rules` as the Storage rules of every bucket (`PUT /internal/setRules`).
    public func loadStorageRules(_ rules: String) async throws {
        let storage = try emulators.address(of: .storage)
        let body: JSONValue = ["rules": ["files": [["name": "storage.rules", "content": .string(rules)]]]]
        _ = try await HTTPExchange.send(.PUT, "\(storage.baseURL)/internal/setRules", json: body).checked()
    }

    /// Loads `rules` (the JSON of `database.rules.json`) as the rules of the environment's namespace
    /// (`PUT /.settings/rules.json`, as admin).
    public func loadDatabaseRules(_ rules: String) async throws {
        let database = try emulators.address(of: .database)
        _ = try await HTTPExchange.send(
            .PUT, "\(database.baseURL)/.settings/rules.json?ns=\(databaseNamespace.urlComponentEncoded)",
            headers: Self.admin, body: Data(rules.utf8)
        ).checked()
    }

    /// The admin credential's header, for the Realtime Database's REST API.
    private static let admin = [("Authorization", ClientIdentity.admin.authorization() ?? "")]

    /// Deletes every document of the project's default database (the emulator's
    /// `DELETE /emulator/v1/projects/{p}/databases/(default)/documents`).
    public func clearFirestore() async throws {
        let firestore = try emulators.address(of: .firestore)
        _ = try await HTTPExchange.send(
            .DELETE,
            "\(firestore.baseURL)/emulator/v1/projects/\(projectID.urlComponentEncoded)/databases/(default)/documents"
        ).checked()
    }

    /// Deletes everything in the environment's Realtime Database namespace, as admin.
    public func clearDatabase() async throws {
        let database = try emulators.address(of: .database)
        _ = try await HTTPExchange.send(
            .PUT, "\(database.baseURL)/.json?ns=\(databaseNamespace.urlComponentEncoded)&print=silent",
            headers: Self.admin, body: Data("null".utf8)
        ).checked()
    }

    /// Deletes every object of the environment's bucket, as admin (listing it folder by folder, as
    /// rules-unit-testing's `clearStorage` does).
    public func clearStorage() async throws {
        let storage = StorageClient(address: try emulators.address(of: .storage), bucket: storageBucket, identity: .admin)
        var folders = [storage.reference()]
        while let folder = folders.popLast() {
            let listing = try await folder.listAll()
            for item in listing.items { try await item.delete() }
            folders += listing.prefixes
        }
    }
}
