import EmulatorCore
import HTTPTypes
import Testing

@testable import FirestoreEmulator

@Suite struct RESTRouteTests {
    /// The segments are the path's pieces after its first `/`, empty ones kept, each percent-decoded where it
    /// decodes: as `split` on the path's UTF-8 gave them.
    @Test(arguments: [
        "/v1/projects/p/databases/(default)/documents/c/d", "/", "", "no-slash", "//", "/a//b/", "a/b/c",
        "/v1/projects/p/databases/%28default%29/documents/c%2Fx/d%20e", "/bad/%zz/%E2%82%AC/%C3", "/ü/é%C3%A9/",
        "/emulator/v1/projects/p:securityRules",
    ])
    func segmentsAreThePathsPiecesDecoded(_ path: String) {
        let expected = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst().map {
            let raw = String(Substring($0))
            return raw.percentDecoded ?? raw
        }
        let (segments, decoded) = RESTRoute.segments(of: path)
        #expect(segments == Array(expected))
        #expect(decoded == path.dropFirst().contains("%"))
    }

    @Test func routesDocumentsAndMethods() throws {
        let name = DatabaseName(project: "p", database: "(default)")
        #expect(
            try RESTRoute(method: .get, path: "/v1/projects/p/databases/(default)/documents/c/d")
                == .getDocument(name, DocumentPath(segments: ["c", "d"])))
        #expect(
            try RESTRoute(method: .patch, path: "/v1/projects/p/databases/%28default%29/documents/c/d%2Fe/f")
                == .updateDocument(name, DocumentPath(segments: ["c", "d", "e", "f"])))
        #expect(
            try RESTRoute(method: .post, path: "/v1/projects/p/databases/(default)/documents:commit")
                == .database(name, .commit))
        #expect(try RESTRoute(method: .get, path: "/other") == nil)
        #expect(throws: FirestoreError.self) { try RESTRoute(method: .get, path: "/v1/projects/p/databases/(default)/documents/c/__x__") }
    }
}
