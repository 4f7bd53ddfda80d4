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
}
