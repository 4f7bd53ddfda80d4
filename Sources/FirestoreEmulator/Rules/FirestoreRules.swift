import EmulatorCore
import Foundation
import Logging
import SecurityRules
import Synchronization

/// The security rules of every project and the decisions Firestore asks of them. A project without rules is
/// open, as in the official emulator; `Bearer owner` bypasses rules everywhere.
final class FirestoreRules: Sendable {
    private struct Loaded {
        var rulesets: [String: CompiledRuleset] = [:]
        /// The rules file loaded at start and the project whose rules it holds.
        var file: (watched: WatchedFiles, project: String)?
    }

    private let loaded = Mutex(Loaded())
    private let cache = RulesCache()
    private let logger: Logger
    /// Where rules loaded through the API are kept across restarts (`--data-dir`), by project.
    private let kept: KeptRulesSpace

    /// Where every decision is recorded, if anywhere (the Emulator UI runs).
    private let requests: RequestLog?

    /// Rules with nothing loaded; with `durable`, rules loaded through the API are kept there; with
    /// `requests`, every decision is recorded there.
    init(logger: Logger, durable: (any DurableStore)? = nil, requests: RequestLog? = nil) {
        self.logger = logger
        kept = KeptRulesSpace(space: "firestore-rules", durable: durable)
        self.requests = requests
    }

    /// Loads `sources` as `project`'s rules through the API (the emulator's `:securityRules`): as
    /// `setRules`, and kept in the data folder when they compile.
    func load(_ sources: [RulesSource], project: String) throws(DurableStoreError) -> [Diagnostic] {
        let compilation = cache.compilation(of: sources, recordCoverage: true)
        let rules = KeptRules(files: sources.map { KeptRules.File(name: $0.fileName, content: $0.text) }, fileText: fileText(of: project))
        return try kept.load(rules, as: project, keep: !compilation.hasErrors) { setRules(sources, project: project) }
    }

    /// Brings back the rules loaded through the API before a restart, except where the rules file changed
    /// since (then the file's rules stay).
    func restoreKept() throws(DurableStoreError) {
        for (project, rules) in try kept.restorable(fileText: fileText(of:)) {
            setRules(rules.files.map { RulesSource(fileName: $0.name, text: $0.content) }, project: project)
        }
    }

    /// The text of the rules file, if it holds `project`'s rules.
    private func fileText(of project: String) -> String? {
        loaded.withLock { $0.file?.project == project ? $0.file?.watched.texts.first : nil }
    }

    /// Compiles `sources` and makes them `project`'s rules unless they have errors; returns every diagnostic.
    @discardableResult
    func setRules(_ sources: [RulesSource], project: String) -> [Diagnostic] {
        let compilation = cache.compilation(of: sources, recordCoverage: true)
        if let ruleset = compilation.ruleset, !compilation.hasErrors {
            loaded.withLock { $0.rulesets[project] = ruleset }
        }
        return compilation.diagnostics
    }

    /// Loads the rules file at `path` for `project` and watches it: a change is loaded when it happens (a
    /// file with errors keeps the previous rules). Returns the file's diagnostics.
    @discardableResult
    func watch(file path: String, project: String) throws -> [Diagnostic] {
        let watched = try WatchedFiles(paths: [path])
        loaded.withLock { $0.file = (watched, project) }
        watched.watch { [weak self] texts in self?.reload(texts[0], from: path, project: project) }
        return setRules([RulesSource(fileName: (path as NSString).lastPathComponent, text: watched.texts[0])], project: project)
    }

    /// Stops watching the rules file.
    func stopWatching() {
        loaded.withLock { $0.file?.watched.stop() }
    }

    /// The rules of `project`.
    func ruleset(for project: String) -> CompiledRuleset? {
        loaded.withLock { $0.rulesets[project] }
    }

    /// Loads the changed rules file's `text` as `project`'s rules, unless it has errors.
    private func reload(_ text: String, from path: String, project: String) {
        let diagnostics = setRules([RulesSource(fileName: (path as NSString).lastPathComponent, text: text)], project: project)
        let errors = diagnostics.filter { $0.severity == .error }
        if errors.isEmpty {
            logger.info("firestore: change detected in \(path), rules updated")
        } else {
            logger.error("firestore: \(path) has errors, keeping the previous rules: \(errors.map(\.description).joined(separator: "; "))")
        }
    }

    // MARK: Decisions

    /// Decides a single-document read (`get`).
    func authorizeGet(_ path: DocumentPath, credential: Credential, view: DatabaseView, time: Timestamp) throws(FirestoreError) {
        guard credential != .owner, let ruleset = ruleset(for: view.name.project) else { return }
        let document = view.peek(at: path)
        let request = RulesRequest(
            service: .firestore, path: path.rulePath(in: view.name), method: .get,
            request: Self.request(.get, path: path.rulePath(in: view.name), credential: credential, time: time),
            resource: document?.ruleValue(in: view.name) ?? .null)
        try decide(ruleset, request, view: view, accessLimit: 10, caller: credential)
    }

    /// Decides a query (`list`): allowed only if the rules hold for every document the query's constraints
    /// allow, not just for the documents it happens to return ("rules are not filters").
    func authorizeQuery(_ query: StructuredQuery, credential: Credential, view: DatabaseView, time: Timestamp) throws(FirestoreError) {
        guard credential != .owner, let ruleset = ruleset(for: view.name.project) else { return }
        let collection = query.parent.appending(query.collectionID)
        var queryInfo: [String: RuleValue] = [
            "limit": query.limit.map { .int(Int64($0)) } ?? .null,
            "offset": .int(Int64(query.offset)),
        ]
        queryInfo["orderBy"] = .map(
            Dictionary(query.orderBy.map { ($0.field.description, .string($0.descending ? "DESC" : "ASC")) }) { a, _ in a })
        for alternative in QueryConstraints(query.filter).alternatives {
            let id = QueryConstraints.documentID(in: alternative) ?? Self.unknownDocumentID
            let path = collection.appending(id).rulePath(in: view.name)
            var request = Self.request(.list, path: path, credential: credential, time: time)
            if case .map(var fields) = request { fields["query"] = .map(queryInfo); request = .map(fields) }
            let proof = alternative.rangedFields.isEmpty
                ? nil
                : RulesProof(
                    strictNumbers: QueryConstraints.hasDoubleBounds(alternative.conditions),
                    pinned: Set(alternative.pinned.keys.map { ["data"] + $0.segments }))
            let samples = Self.samples(of: alternative, literals: ruleset.literals)
            for (index, pinned) in samples.enumerated() {
                let resource: RuleValue = .map([
                    "data": .map(QueryConstraints.fields(of: pinned).mapValues(\.ruleValue)),
                    "id": .string(id), "__name__": .path(path),
                ])
                let sample = RulesRequest(
                    service: .firestore, path: path, method: .list, request: request, resource: resource, proof: proof)
                // One decision per query reaches the request log: the sample that fails, else the last.
                if index < samples.count - 1,
                    ruleset.evaluate(sample, data: ViewRulesData(view: view), accessLimit: 10).allowed
                {
                    continue
                }
                try decide(ruleset, sample, view: view, accessLimit: 10, caller: credential)
            }
        }
    }

    /// The most documents one alternative of a query is decided for (its ranged fields' samples
    /// multiplied); beyond it the ranged fields are left out, so rules that read them deny.
    static let sampleLimit = 1_024

    /// The documents standing for every document `alternative` admits: its pinned values, and each
    /// combination of the sample values of its ranged fields (`QueryConstraints.values`). The official
    /// engine allows `where age > 19` under `resource.data.age > 18` and not `where age > 17`, which admits
    /// 17.5: the rules must hold across the range, not only where the query's documents happen to be.
    private static func samples(of alternative: QueryConstraints.Alternative, literals: [RuleValue]) -> [[FieldPath: FirestoreValue]] {
        var documents = [alternative.pinned]
        for field in alternative.rangedFields {
            let values = QueryConstraints.values(of: field, for: alternative, literals: literals)
            guard !values.isEmpty, documents.count * values.count <= sampleLimit else { continue }
            documents = documents.flatMap { document in values.map { document.merging([field: $0]) { kept, _ in kept } } }
        }
        return documents
    }

    /// Decides every write of a commit (`create`, `update` or `delete`; verifies are reads already decided).
    /// `request.resource` is the document after the write; `getAfter()` sees the whole commit.
    func authorizeWrites(
        _ writes: [FirestoreStore.PendingWrite], credential: Credential, view: DatabaseView, time: Timestamp
    ) throws(FirestoreError) {
        guard credential != .owner, let ruleset = ruleset(for: view.name.project) else { return }
        let accessLimit = writes.count > 1 ? 20 : 10
        for pending in writes {
            let method: RuleMethod
            switch pending.write.operation {
            case .verify: continue
            case .delete: method = .delete
            case .update, .transform: method = pending.before == nil ? .create : .update
            }
            let path = pending.write.path.rulePath(in: view.name)
            var request = Self.request(method, path: path, credential: credential, time: time)
            if case .map(var fields) = request {
                fields["resource"] = pending.after?.ruleValue(in: view.name) ?? .null
                // The deprecated `request.writeFields`: the paths a masked update writes (and transforms), as
                // the official emulator gives them; other writes have none.
                if let mask = pending.write.updateMask {
                    let written = mask + pending.write.transforms.map(\.field).filter { !mask.contains($0) }
                    fields["writeFields"] = .list(written.map { .string($0.description) })
                }
                request = .map(fields)
            }
            try decide(
                ruleset,
                RulesRequest(
                    service: .firestore, path: path, method: method, request: request,
                    resource: pending.before?.ruleValue(in: view.name) ?? .null),
                view: view, accessLimit: accessLimit, caller: credential)
        }
    }

    /// The id bound to a list request's document wildcard when the query does not pin one: no real
    /// document has it, so rules that depend on the id cannot hold for "every document".
    static let unknownDocumentID = "__query_document__"

    private static func request(_ method: RuleMethod, path: RulePath, credential: Credential, time: Timestamp) -> RuleValue {
        .map([
            "auth": credential.ruleAuth, "method": .string(method.rawValue), "path": .path(path),
            "time": .timestamp(RuleTimestamp(seconds: time.seconds, nanos: time.wholeMilliseconds.nanos)),
        ])
    }

    private func decide(
        _ ruleset: CompiledRuleset, _ request: RulesRequest, view: DatabaseView, accessLimit: Int, caller: Credential
    ) throws(FirestoreError) {
        let decision = ruleset.evaluate(
            request, data: ViewRulesData(view: view), accessLimit: accessLimit, log: requests, caller: caller.uid)
        guard decision.allowed else {
            logger.debug("firestore: \(request.method.rawValue) \(request.path) denied: \(decision.explanation)")
            throw FirestoreError.permissionDenied(because: decision.denial(for: request.method))
        }
    }
}

/// Documents for rules' `get()`/`exists()` (the stored state) and `getAfter()`/`existsAfter()` (with the
/// commit's pending writes).
///
/// `@unchecked Sendable`: a value lives for one decision only, inside the store call that handed out the
/// view, under the store's lock; it never escapes to another thread.
private struct ViewRulesData: RulesDataSource, @unchecked Sendable {
    let view: DatabaseView

    func document(at path: RulePath) -> RuleValue? {
        guard let documentPath = DocumentPath(rulePath: path, in: view.name) else { return nil }
        return view.state.document(at: documentPath, time: view.readTime)?.ruleValue(in: view.name)
    }

    func documentAfter(at path: RulePath) -> RuleValue? {
        guard let documentPath = DocumentPath(rulePath: path, in: view.name) else { return nil }
        return view.peek(at: documentPath)?.ruleValue(in: view.name)
    }
}
