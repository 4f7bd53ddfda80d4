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

    /// Every path the plain reading takes routes as the general reading routes it, with the same error when
    /// it is refused: shapes of names, ids, custom methods and escapes, under every method.
    @Test func thePlainReadingAgreesWithTheGeneralOne() throws {
        let roots = ["/v1/projects/p/databases/(default)/documents", "/v1/projects/p/databases/db/documents"]
        let tails = [
            "", "/c", "/c/d", "/c/d/e", "/c/d/e/f", ":commit", ":runQuery", ":listen", ":unknown", "/c/d:runQuery",
            "/c/d:commit", "/c:runQuery", "/c/d:unknown", "/c/a:b", "/c/a:b/e", "/c/a:commit/e/f", "/c//d", "/c/d/",
            "/c/.d", "/c/..", "/c/_d", "/c/__d__", "/c/__id7__", "/c/d%2Fe/f", "/c/%64", "/c/é🌍/x",
            "/c/" + String(repeating: "x", count: 1500), "/c/" + String(repeating: "x", count: 1501),
            "/" + Array(repeating: "c/d", count: 100).joined(separator: "/"),
            "/" + Array(repeating: "c/d", count: 101).joined(separator: "/"),
        ]
        var paths = roots.flatMap { root in tails.map { root + $0 } }
        paths += [
            "/v1/projects/p/databases", "/v1/projects/p/databases/d", "/v1/projects//databases/d/documents/c/d",
            "/v1/projects/p/databases//documents/c/d", "/v1/projects/p/database/d/documents/c/d",
            "/v1/projects/p/databases/d/documentsx/c/d", "/v1/projects/p/databases/d:commit", "/v1//projects/p/databases/d/documents",
            "/v1/", "/v1", "/emulator/v1/projects/p:securityRules", "/v1/projects/p:x/databases/d/documents/c/d",
        ]
        let methods: [HTTPRequest.Method] = [.get, .post, .patch, .delete, .put]
        for path in paths {
            for method in methods {
                let plain = Result { () throws(FirestoreError) in try RESTRoute(method: method, path: path) }
                let general = Result { () throws(FirestoreError) in try RESTRoute.generally(method: method, path: path) }
                switch (plain, general) {
                case (.success(let a), .success(let b)): #expect(a == b, "\(method) \(path)")
                case (.failure(let a), .failure(let b)): #expect(a == b, "\(method) \(path)")
                default: Issue.record("\(method) \(path): \(plain) but generally \(general)")
                }
            }
        }
    }
}
