import EmulatorCore
import Testing

@testable import FirestoreEmulator

@Suite struct DocumentPathTests {
    @Test func parsesDocumentNames() throws {
        let (database, path) = try DocumentPath.parse(documentName: "projects/p/databases/(default)/documents/users/alice")
        #expect(database == DatabaseName(project: "p", database: "(default)"))
        #expect(path.segments == ["users", "alice"])
        #expect(path.isDocument)
        #expect(path.parent.isCollection)
        #expect(path.name(in: database) == "projects/p/databases/(default)/documents/users/alice")
    }

    @Test func rejectsCollectionsAsDocuments() {
        #expect(throws: FirestoreError.self) {
            try DocumentPath.parse(documentName: "projects/p/databases/(default)/documents/users")
        }
    }

    @Test(arguments: [
        "projects/p/databases/(default)/documents/users//x", "projects/p/databases/(default)/documents/__x__/y",
        "projects/p/databases/(default)/documents/a/..", "projects/p/database/(default)/documents/a/b",
        "projects//databases/(default)/documents/a/b", "projects/p/databases/(default)/docs/a/b",
    ])
    func rejectsMalformedNames(name: String) {
        #expect(throws: FirestoreError.self) { try DocumentPath.parse(resourceName: name) }
    }

    @Test func ordersLikeReferences() {
        let a = DocumentPath(segments: ["c", "a"])
        let b = DocumentPath(segments: ["c", "b"])
        let nested = DocumentPath(segments: ["c", "a", "sub", "x"])
        #expect(a < b)
        #expect(a < nested)
        #expect(nested < b)
        #expect(DocumentPath(segments: ["c"]).isPrefix(of: nested))
    }

    /// A resource name read plainly on its bytes (`DocumentPath.plain`) parses as the general reading of its
    /// parts parses it, and every name it does not take is left to that reading.
    @Test func aPlainResourceNameParsesAsItsPartsDo() throws {
        let root = "projects/p/databases/(default)/documents"
        let deep = Array(repeating: "c/d", count: 100).joined(separator: "/")
        let names = [
            root, root + "/a", root + "/a/b", root + "/a/b/c", root + "/rooms/é🌍", root + "/a//b", root + "/a/", root + "/.a",
            root + "/a/..", root + "/_a", root + "/__x__/y", root + "/__id7__/y", root + "/a:b/c", root + "/" + deep,
            root + "/" + deep + "/x", root + "/" + String(repeating: "x", count: 1501), "projects/q:r/databases/d b/documents/a",
            "projects//databases/d/documents/a", "projects/p/databases//documents/a", "projects/p/databases/d", "",
            "/projects/p/databases/d/documents/a", "projects/p/database/d/documents/a", "projects/p/databases/d/documentsx",
        ]
        for name in names {
            let parsed = Result { () throws(FirestoreError) in try DocumentPath.parse(resourceName: name) }
            let general = Result { () throws(FirestoreError) in
                try DocumentPath.parse(resourceParts: name.pieces(separatedBy: UInt8(ascii: "/")), name: name)
            }
            switch (parsed, general) {
            case (.success(let a), .success(let b)): #expect(a.0 == b.0 && a.1 == b.1, "\(name)")
            case (.failure(let a), .failure(let b)): #expect(a == b, "\(name)")
            default: Issue.record("\(name): \(parsed) but generally \(general)")
            }
        }
    }

    /// A write's document name read on the bytes (`Write.plainDocumentPath`) gives the path the general
    /// parse gives, and leaves every name it does not plainly take to it.
    @Test func aPlainDocumentNameReadsAsTheGeneralParseReadsIt() throws {
        let database = DatabaseName(project: "p", database: "(default)")
        let root = "projects/p/databases/(default)/documents/"
        let deep = Array(repeating: "c/d", count: 101).joined(separator: "/")
        let names = [
            root + "a/b", root + "a/b/c/d", root + "rooms/é🌍", root + "a/" + String(repeating: "x", count: 1500),
            root + "a/" + String(repeating: "x", count: 1501), root + "a", root + "a/b/c", root + "a//b", root + "a/b/",
            root, root + "a/.b", root + "a/__id7__", root + "a/__x__", root + "_a/b", root + deep,
            "projects/q/databases/(default)/documents/a/b", "projects/p/databases/other/documents/a/b",
            "projects/p/databases/(default)/documentsa/b", "projects/p/databases/(default)", "", "a/b",
        ]
        for name in names {
            let general = Result { () throws(FirestoreError) in try DocumentPath.parse(documentName: name) }
            if let plain = Write.plainDocumentPath(name, in: database) {
                guard case .success(let (named, path)) = general else {
                    Issue.record("\(name): taken plainly, refused by the parse")
                    continue
                }
                #expect(named == database && path == plain, "\(name)")
            }
            let viaWrite = Result { () throws(FirestoreError) in try Write.documentPath(name, in: database) }
            switch (viaWrite, general) {
            case (.success(let path), .success(let (named, parsed))): #expect(named == database && path == parsed, "\(name)")
            case (.failure(let error), .failure(let parsed)): #expect(error.message == parsed.message, "\(name)")
            case (.failure, .success(let (named, _))): #expect(named != database, "\(name)")
            case (.success, .failure): Issue.record("\(name): a path the parse refuses")
            }
        }
        #expect(Write.plainDocumentPath(root + "a/b", in: database) == DocumentPath(segments: ["a", "b"]))
    }
}
