import EmulatorCore
import EmulatorHTTP
import Foundation
import Logging
import SecurityRules

/// The Cloud Storage for Firebase emulator: the Firebase v0 API the client SDKs use (with `storage.rules`
/// enforced, `firestore.get()` reading Firestore in process) and the GCS JSON API the admin SDKs and
/// google-cloud-storage use (admin, no rules), over one object store whose bytes live on disk, on one port
/// (default 9199). Start it in process on port 0 from tests; `port` tells where it listens.
public final class StorageEmulator: ServedEmulator {
    /// The default port (firebase-tools `DEFAULT_PORTS.storage`).
    public static let defaultPort = 9199
    /// The default largest object an upload may create: 5 GiB (the official emulator stops at 130 MB).
    public static let defaultMaxUploadSize: Int64 = 5 << 30

    /// The project (for `firestore.get()` in rules).
    public let projectID: String
    let store: ObjectStore
    let uploads = UploadSessions()
    let rules: StorageRules
    let clock: any EmulatorClock
    /// The HTTP server the emulator listens with.
    public let server: EmulatorServer

    /// Creates the emulator; nothing listens until `start()`. `rulesFile` (optional) holds the rules of
    /// every bucket not in `bucketRulesFiles` (bucket → rules file); files are reloaded when they change.
    /// `documents` is what `firestore.get()` / `firestore.exists()` read (the Firestore emulator's
    /// `rulesDocuments()`; none by default). With `durable`, the emulator starts with the buckets and objects
    /// kept there (their bytes in its `storage/` subfolder) and writes every change there before acknowledging
    /// it; uploads in progress are not kept. Throws if a rules file cannot be read or does not compile, if the
    /// store's directory cannot be made, or if what `durable` keeps cannot be read. With `requests`, every
    /// rules decision is recorded there (the Emulator UI's Requests page).
    public init(
        projectID: String, host: String = "127.0.0.1", port: Int = StorageEmulator.defaultPort,
        rulesFile: String? = nil, bucketRulesFiles: [String: String] = [:], documents: (any RulesDataSource)? = nil,
        maxUploadSize: Int64 = StorageEmulator.defaultMaxUploadSize, clock: any EmulatorClock = SystemClock(),
        logger: Logger = Logger(label: "hearth.storage"), durable: (any DurableStore)? = nil,
        requests: RequestLog? = nil
    ) throws {
        self.projectID = projectID
        store = try ObjectStore(durable: durable)
        self.clock = clock
        rules = StorageRules(documents: documents ?? NoRulesData(), logger: logger, durable: durable, requests: requests)
        var files: [(path: String, bucket: String?)] = bucketRulesFiles.sorted { $0.key < $1.key }.map { ($0.value, $0.key) }
        if let rulesFile { files.insert((rulesFile, nil), at: 0) }
        if !files.isEmpty {
            let diagnostics: [Diagnostic]
            do {
                diagnostics = try rules.watch(files: files)
            } catch let error as UnreadableFile {
                throw StorageRulesFileError(path: error.path, messages: ["it cannot be read"])
            }
            let errors = diagnostics.filter { $0.severity == .error }
            guard errors.isEmpty else {
                throw StorageRulesFileError(path: files.map(\.path).joined(separator: ", "), messages: errors.map(\.description))
            }
        }
        try rules.restoreKept()
        let api = StorageAPI(
            store: store, uploads: uploads, rules: rules, clock: clock, maxUploadSize: maxUploadSize, logger: logger)
        server = EmulatorServer(
            responder: EmulatorResponder(cors: CORSPolicy(exposedHeaders: Self.exposedHeaders)) { request, context in
                try await api.handle(request, context: context)
            },
            host: host, port: port, logger: logger)
    }

    /// Loads `files` as the rules of every bucket (`bucket` nil) or of their buckets, as
    /// `PUT /internal/setRules` does; returns the diagnostics (with errors nothing changes).
    @discardableResult
    public func setRules(_ text: String, fileName: String = "storage.rules", bucket: String? = nil) -> [Diagnostic] {
        rules.setRules([StorageRules.File(name: fileName, content: text, bucket: bucket)])
    }

    /// Removes every object and upload in progress; throws (and removes no object) if the data folder cannot be
    /// written.
    public func reset() throws {
        uploads.reset()
        try store.reset()
    }

    /// The response headers a browser may read (the official emulator's list).
    static let exposedHeaders = [
        "content-type", "x-firebase-storage-version", "X-Goog-Upload-Size-Received", "x-goog-upload-url",
        "x-goog-upload-command", "x-gupload-uploadid", "x-goog-upload-header-content-length",
        "x-goog-upload-header-content-type", "x-goog-upload-protocol", "x-goog-upload-status",
        "x-goog-upload-chunk-granularity", "x-goog-upload-control-url",
    ]
}

/// A Storage rules file that cannot be read or does not compile; the message names the file and each error.
public struct StorageRulesFileError: Error, CustomStringConvertible {
    /// The file.
    public var path: String
    /// One line per error (`file:line:column: message`).
    public var messages: [String]

    /// `storage: storage.rules: it cannot be read`, or its errors one per line.
    public var description: String { "storage: \(path): " + messages.joined(separator: "\n") }
}
