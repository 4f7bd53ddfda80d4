import EmulatorCore
import Foundation
import NIOHTTP1

/// The suite's checkpoints, through the hub (`/emulator/v1/checkpoints`), so they work the same in process
/// and attached: seed once, `checkpoint("seeded")`, and `restore("seeded")` before each test instead of
/// clearing and seeding again.
extension HearthEmulators {
    /// Takes checkpoint `name` of every emulator (1 to 100 letters, digits, `-`, `_`, `.`; an older one of
    /// that name is replaced).
    public func checkpoint(_ name: String) async throws {
        _ = try await HTTPExchange.send(.POST, try checkpointURL(name)).checked()
    }

    /// Brings every emulator back to checkpoint `name`; clients connected see the changes as writes.
    public func restore(_ name: String) async throws {
        _ = try await HTTPExchange.send(.POST, try checkpointURL(name) + ":restore").checked()
    }

    /// The names of the checkpoints taken, oldest first.
    public func checkpoints() async throws -> [String] {
        let hub = try address(of: .hub)
        let listing = try await HTTPExchange.send(.GET, hub.baseURL + "/emulator/v1/checkpoints").checked().json
        return (listing["checkpoints"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
    }

    private func checkpointURL(_ name: String) throws(ClientError) -> String {
        try address(of: .hub).baseURL + "/emulator/v1/checkpoints/" + name.urlComponentEncoded
    }
}
