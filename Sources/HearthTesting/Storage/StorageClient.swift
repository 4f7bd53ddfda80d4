import Foundation
import NIOHTTP1

/// A client of the Storage emulator's Firebase v0 API (`/v0/b/{bucket}/o/...`), speaking as the Firebase
/// web SDK does: every request carries `Authorization: Firebase <ID token>` and `storage.rules` decide it
/// (`ClientIdentity.admin` sends `Firebase owner`, which bypasses the rules).
public struct StorageClient: Sendable, Hashable {
    /// Where the Storage emulator listens.
    public let address: EmulatorAddress
    /// The bucket the references point into.
    public let bucket: String
    /// Whom the requests speak for.
    public let identity: ClientIdentity

    /// A client of `bucket` on the emulator at `address`, speaking for `identity`.
    public init(address: EmulatorAddress, bucket: String, identity: ClientIdentity) {
        self.address = address
        self.bucket = bucket
        self.identity = identity
    }

    /// A reference to `path` in the bucket (empty segments are dropped, as the SDKs do); the root when
    /// `path` is empty.
    public func reference(_ path: String = "") -> StorageReference {
        StorageReference(client: self, path: StorageReference.canonical(path))
    }

    /// `http://host:port/v0/b/{bucket}/o`, the bucket's objects.
    var objectsURL: String { "\(address.baseURL)/v0/b/\(bucket.urlComponentEncoded)/o" }

    /// Sends a request with the identity's `Authorization`.
    func send(
        _ method: HTTPMethod, _ url: String, headers: [(String, String)] = [], body: Data? = nil
    ) async throws(ClientError) -> HTTPExchange.Response {
        var headers = headers
        if let authorization = identity.authorization(scheme: "Firebase") {
            headers.append(("Authorization", authorization))
        }
        return try await HTTPExchange.send(method, url, headers: headers, body: body)
    }
}
