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
        /// The files loaded at start and each one's bucket (nil: every other bucket).
        var watched: (files: WatchedFiles, buckets: [String?])?
    }

    private let loaded = Mutex(Loaded())
    private let cache = RulesCache()
    /// What `firestore.get()` reads.
    private let documents: any RulesDataSource
    private let logger: Logger

    /// Where rules loaded through the API are kept across restarts (`--data-dir`): one set, as a load
    /// replaces every bucket's rules.
    private let kept: KeptRulesSpace
    /// The key of the one set kept.
    private static let keptKey = "rules"

    /// Where every decision is recorded, if anywhere (the Emulator UI runs).
    private let requests: RequestLog?

    /// Rules with nothing loaded, reading Firestore documents from `documents`; with `durable`, rules loaded
    /// through the API are kept there; with `requests`, every decision is recorded there.
    init(documents: any RulesDataSource, logger: Logger, durable: (any DurableStore)? = nil, requests: RequestLog? = nil) {
        self.documents = documents
        self.logger = logger
        kept = KeptRulesSpace(space: "storage-rules", durable: durable)
        self.requests = requests
    }

    /// Loads `files` through the API (`PUT /internal/setRules`): as `setRules`, and kept in the data folder
    /// when they compile.
    func load(_ files: [File]) throws(DurableStoreError) -> [Diagnostic] {
        let compiles = files.allSatisfy { !cache.compilation(of: [RulesSource(fileName: $0.name, text: $0.content)]).hasErrors }
        let rules = KeptRules(
            files: files.map { KeptRules.File(name: $0.name, content: $0.content, resource: $0.bucket) }, fileText: watchedText)
        return try kept.load(rules, as: Self.keptKey, keep: compiles) { setRules(files) }
    }

    /// Brings back the rules loaded through the API before a restart, unless the rules files changed since.
    func restoreKept() throws(DurableStoreError) {
        guard let rules = try kept.restorable(fileText: { _ in watchedText }).first(where: { $0.key == Self.keptKey })?.rules
        else { return }
        setRules(rules.files.map { File(name: $0.name, content: $0.content, bucket: $0.resource) })
    }

    /// The watched rules files' texts, as one string (`nil` without files).
    private var watchedText: String? {
        loaded.withLock { $0.watched?.files.texts.joined(separator: "\u{0}") }
    }

    /// Compiles `files` and, if none has errors, makes them the rules of every bucket (a file without a
    /// bucket) and of their buckets (replacing every other ruleset); returns every diagnostic.
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

    /// Loads rules files (each with its bucket; the `nil` bucket's file holds every other bucket's rules)
    /// and watches them: a change is loaded when it happens. Returns their diagnostics. Throws
    /// `UnreadableFile` for a file that cannot be read.
    @discardableResult
    func watch(files: [(path: String, bucket: String?)]) throws -> [Diagnostic] {
        let watched = try WatchedFiles(paths: files.map(\.path))
        let buckets = files.map(\.bucket)
        loaded.withLock { $0.watched = (watched, buckets) }
        let paths = watched.paths
        watched.watch { [weak self] texts in self?.reload(texts, paths: paths, buckets: buckets) }
        return setRules(Self.files(watched.paths, watched.texts, buckets))
    }

    /// Loads the rules files' new `texts`, unless they have errors (then the previous rules stay).
    private func reload(_ texts: [String], paths: [String], buckets: [String?]) {
        let errors = setRules(Self.files(paths, texts, buckets)).filter { $0.severity == .error }
        if errors.isEmpty {
            logger.info("storage: change detected in the rules files, rules updated")
        } else {
            logger.error("storage: rules files have errors, keeping the previous rules: \(errors.map(\.description).joined(separator: "; "))")
        }
    }

    private static func files(_ paths: [String], _ texts: [String], _ buckets: [String?]) -> [File] {
        zip(paths, zip(texts, buckets)).map { File(name: ($0 as NSString).lastPathComponent, content: $1.0, bucket: $1.1) }
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
        // rules_version 1 has no `list` (the official emulator: list needs rules_version '2').
        if method == .list, ruleset.version == .v1 { return false }
        var path = ["b", bucket, "o"]
        path += name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let rulePath = RulePath(segments: path)
        let request: RuleValue = .map([
            "auth": credential.ruleAuth, "method": .string(method.rawValue), "path": .path(rulePath),
            "time": .timestamp(RuleTimestamp(time)), "resource": proposed?.ruleValue ?? .null,
        ])
        let decision = ruleset.evaluate(
            RulesRequest(service: .storage, path: rulePath, method: method, request: request, resource: resource?.ruleValue ?? .null),
            data: documents, log: requests, caller: credential.uid)
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
