import EmulatorCore
import Foundation
import Logging
import SecurityRules
import Synchronization

/// The Storage rules of every bucket and the decisions the Firebase v0 API asks of them: one ruleset for
/// all buckets or one per bucket (`resource` in `setRules`), a rules file watched for changes, and the
/// Firestore documents that `firestore.get()` / `firestore.exists()` read. As in the official emulator, a
/// bucket without rules refuses every request but an admin's.
final class StorageRules: Sendable {
    /// One rules file to load, for every bucket (`bucket` nil) or one.
    struct File: Sendable {
        var name: String
        var content: String
        var bucket: String?
    }

    private struct Loaded {
        var all: CompiledRuleset?
        var buckets: [String: CompiledRuleset] = [:]
        var watched: (path: String, text: String)?
        var lastCheck = Date.distantPast
    }

    private let loaded = Mutex(Loaded())
    private let cache = RulesCache()
    /// What `firestore.get()` reads.
    private let documents: any RulesDataSource
    private let logger: Logger

    /// Rules with nothing loaded, reading Firestore documents from `documents`.
    init(documents: any RulesDataSource, logger: Logger) {
        self.documents = documents
        self.logger = logger
    }

    /// Compiles `files` and, if none has errors, makes them the rules of every bucket (one file without a
    /// bucket) or of their buckets (replacing every other ruleset); returns every diagnostic.
    @discardableResult
    func setRules(_ files: [File]) -> [Diagnostic] {
        var all: CompiledRuleset?
        var buckets: [String: CompiledRuleset] = [:]
        var diagnostics: [Diagnostic] = []
        for file in files {
            let compilation = cache.compilation(of: [RulesSource(fileName: file.name, text: file.content)])
            diagnostics += compilation.diagnostics
            guard let ruleset = compilation.ruleset, !compilation.hasErrors else { continue }
            if let bucket = file.bucket { buckets[bucket] = ruleset } else { all = ruleset }
        }
        if !diagnostics.contains(where: { $0.severity == .error }) {
            loaded.withLock { state in
                state.all = all
                state.buckets = buckets
            }
        }
        return diagnostics
    }

    /// Loads the rules file at `path` for every bucket and watches it; returns its diagnostics.
    @discardableResult
    func watch(file path: String) throws -> [Diagnostic] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        loaded.withLock { $0.watched = (path, text) }
        return setRules([File(name: (path as NSString).lastPathComponent, content: text)])
    }

    /// Reloads the watched file if it changed (checked at most every half second, as requests arrive).
    func reloadIfChanged() {
        let due = loaded.withLock { state -> (path: String, text: String)? in
            guard let watched = state.watched, Date().timeIntervalSince(state.lastCheck) >= 0.5 else { return nil }
            state.lastCheck = Date()
            return watched
        }
        guard let due, let text = try? String(contentsOfFile: due.path, encoding: .utf8), text != due.text else { return }
        loaded.withLock { $0.watched?.text = text }
        let errors = setRules([File(name: (due.path as NSString).lastPathComponent, content: text)])
            .filter { $0.severity == .error }
        if errors.isEmpty {
            logger.info("storage: change detected in \(due.path), rules updated")
        } else {
            logger.error("storage: \(due.path) has errors, keeping the previous rules: \(errors.map(\.description).joined(separator: "; "))")
        }
    }

    /// The rules of `bucket`, if any are loaded.
    func ruleset(for bucket: String) -> CompiledRuleset? {
        loaded.withLock { $0.buckets[bucket] ?? $0.all }
    }

    /// Whether `credential` may `method` object `name` of `bucket` (`resource`: the object as it is;
    /// `proposed`: the object as the request would leave it). Admins always may.
    func allows(
        _ method: RuleMethod, bucket: String, name: String, credential: Credential, resource: StoredObject?,
        proposed: StoredObject? = nil, time: Date
    ) -> Bool {
        if credential == .owner { return true }
        guard let ruleset = ruleset(for: bucket) else { return false }
        var path = ["b", bucket, "o"]
        path += name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let rulePath = RulePath(segments: path)
        let request: RuleValue = .map([
            "auth": credential.ruleAuth, "method": .string(method.rawValue), "path": .path(rulePath),
            "time": .timestamp(RuleTimestamp(time)), "resource": proposed?.ruleValue ?? .null,
        ])
        let decision = ruleset.evaluate(
            RulesRequest(service: .storage, path: rulePath, method: method, request: request, resource: resource?.ruleValue ?? .null),
            data: documents)
        return decision.allowed
    }
}

extension RuleTimestamp {
    /// The time of `date`, to the microsecond.
    init(_ date: Date) {
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let (seconds, remainder) = micros.quotientAndRemainder(dividingBy: 1_000_000)
        self.init(seconds: seconds, nanos: Int32(remainder * 1000))
    }
}

extension StoredObject {
    /// The object as rules see `resource` and `request.resource`.
    var ruleValue: RuleValue {
        var fields: [String: RuleValue] = [
            "name": .string(name), "bucket": .string(bucket), "generation": .int(generation),
            "metageneration": .int(metageneration), "size": .int(size), "timeCreated": .timestamp(RuleTimestamp(timeCreated)),
            "updated": .timestamp(RuleTimestamp(updated)), "md5Hash": .string(md5Hash), "crc32c": .string(crc32c),
            "etag": .string(etag), "metadata": .map(customMetadata.mapValues { .string($0) }),
            "contentType": contentType.map { .string($0) } ?? .null,
        ]
        for (key, value) in [
            ("contentDisposition", contentDisposition), ("contentEncoding", contentEncoding),
            ("contentLanguage", contentLanguage), ("cacheControl", cacheControl),
        ] {
            if let value { fields[key] = .string(value) }
        }
        return .map(fields)
    }
}
