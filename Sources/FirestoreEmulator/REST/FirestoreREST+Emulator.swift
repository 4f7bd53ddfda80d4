import EmulatorCore
import EmulatorHTTP
import Hummingbird
import SecurityRules

/// The emulator-only endpoints (not in production): loading rules per project, the coverage report, and
/// the indexes queries needed and lacked (`GET /emulator/v1/projects/{p}:missingIndexes`, in
/// `firestore.indexes.json`'s shape).
extension FirestoreREST {
    /// `PUT /emulator/v1/projects/{p}:securityRules` with `{"rules":{"files":[{"name","content"}]}}`: compiles
    /// and loads the project's rules; answers `{"issues":[...]}`. Rules with errors are refused (400) and
    /// the old ones kept, unless `ignore_errors` is set (then 200 with the issues, as firebase-tools asks).
    func setSecurityRules(_ project: String, _ call: RESTCall) throws -> JSONValue {
        var sources: [RulesSource] = []
        for (index, file) in (call.body["rules"]?["files"]?.arrayValue ?? []).enumerated() {
            guard let content = file["content"]?.stringValue else {
                throw FirestoreError(.invalidArgument, "rules.files[\(index)].content is required.")
            }
            sources.append(RulesSource(fileName: file["name"]?.stringValue ?? "firestore.rules", text: content))
        }
        guard !sources.isEmpty else { throw FirestoreError(.invalidArgument, "rules.files must name at least one file.") }
        let diagnostics: [Diagnostic]
        do {
            diagnostics = try rules.load(sources, project: project)
        } catch {
            throw FirestoreError(.unavailable, "The rules could not be stored: \(error.message)")
        }
        let issues: [JSONValue] = diagnostics.map { diagnostic in
            var position: [String: JSONValue] = [
                "fileName": .string(diagnostic.fileName), "line": .int(Int64(diagnostic.location.line)),
                "column": .int(Int64(diagnostic.location.column)),
            ]
            if let offsets = diagnostic.offsets {
                position["currentOffset"] = .int(Int64(offsets.lowerBound))
                position["endOffset"] = .int(Int64(offsets.upperBound))
            }
            return [
                "sourcePosition": .object(position),
                "description": .string(diagnostic.message),
                "severity": .string(diagnostic.severity == .error ? "ERROR" : "WARNING"),
            ]
        }
        let ignoreErrors = call.body["ignore_errors"]?.boolValue ?? call.body["ignoreErrors"]?.boolValue ?? false
        if !ignoreErrors, diagnostics.contains(where: { $0.severity == .error }) {
            var error = FirestoreError(
                .invalidArgument,
                "The rules have errors: "
                    + diagnostics.filter { $0.severity == .error }.map(\.description).joined(separator: "; ")
            ).apiError
            error.errorItems = issues
            throw error
        }
        return ["issues": .array(issues)]
    }

    /// `GET /emulator/v1/projects/{p}:ruleCoverage[.html]`: how often each rules expression evaluated, and to
    /// what, since the rules were loaded.
    func ruleCoverage(_ project: String, html: Bool) -> Response {
        guard let ruleset = rules.ruleset(for: project) else {
            return html
                ? .text("<!doctype html><title>Rules coverage</title><p>No rules are loaded for this project.</p>",
                    contentType: "text/html; charset=utf-8")
                : .json(["rules": ["files": []], "report": []])
        }
        let report = RulesCoverageReport(ruleset: ruleset)
        if html { return .text(report.html, contentType: "text/html; charset=utf-8") }
        return .json(JSONValue(encodable: report.json))
    }
}

extension FirestoreREST {
    /// `GET /v1/projects/{p}/databases` (the Firestore Admin API's ListDatabases, for the administrator only):
    /// `(default)` and every other database of the project that holds documents, as production lists the
    /// databases created — here a database exists once something is written to it.
    func listDatabases(_ project: String, _ call: RESTCall) throws(FirestoreError) -> JSONValue {
        guard call.context.credential == .owner else {
            throw FirestoreError(.permissionDenied, "The caller does not have permission")
        }
        var names = store.snapshot(project: project).map(\.name.database)
        if !names.contains(DatabaseName.defaultDatabase) { names.insert(DatabaseName.defaultDatabase, at: 0) }
        return ["databases": .array(names.map { name in
            [
                "name": .string("projects/\(project)/databases/\(name)"), "type": "FIRESTORE_NATIVE",
                "concurrencyMode": "PESSIMISTIC",
            ]
        })]
    }
}
