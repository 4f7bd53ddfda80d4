import EmulatorCore
import SecurityRules

/// A project's documents as another emulator's rules read them (Storage rules' `firestore.get()` and
/// `firestore.exists()`): the stored state now, with admin rights, in process — no HTTP hop, no Firestore
/// rules.
struct StoreRulesData: RulesDataSource {
    let store: FirestoreStore
    let project: String

    func document(at path: RulePath) -> RuleValue? {
        let segments = path.segments
        guard segments.count >= 5, segments[0] == "databases", segments[2] == "documents" else { return nil }
        let database = DatabaseName(project: project, database: segments[1])
        guard let documentPath = DocumentPath(rulePath: path, in: database),
            let (document, _) = try? store.read(database, { (view: inout DatabaseView) throws(FirestoreError) in
                view.document(at: documentPath)?.ruleValue(in: database)
            })
        else { return nil }
        return document
    }

    func documentAfter(at path: RulePath) -> RuleValue? { document(at: path) }
}

extension FirestoreEmulator {
    /// The documents of `project` (of `projectID` when `nil`) as Storage rules' `firestore.get()` and
    /// `firestore.exists()` read them: as stored now, with admin rights, in process.
    public func rulesDocuments(project: String? = nil) -> any RulesDataSource {
        StoreRulesData(store: store, project: project ?? projectID)
    }
}
