import Dispatch
import EmulatorCore
import Foundation
import GRDB
import GRDBSQLite
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A data folder (`--data-dir`): the suite's durable state in one SQLite database, `hearth.sqlite`, in WAL mode
/// with `synchronous=NORMAL` (a committed transaction is in the write-ahead log before `write` returns, so
/// killing the process loses nothing; a power cut may lose the last moments, as the OS had not flushed them),
/// plus a folder per emulator for files. One process at a time: `hearth.lock` is held for the store's life.
///
/// Entries live in one table keyed by (space, key). GRDB owns the connection, its configuration and
/// transactions; the scan and batch inserts step SQLite statements directly, which keeps a restart with a
/// million documents to the cost of reading them.
public final class DataDirectory: DurableStore {
    /// The folder.
    public let path: String
    private let queue: DatabaseQueue
    /// A second connection that moves the write-ahead log into the database (a checkpoint, which syncs the
    /// file) on a timer, so that no write waits for it: the writing connection never checkpoints itself.
    private let checkpointer: DatabaseQueue
    /// The descriptor holding `hearth.lock` and the checkpoint timer, until `close()`.
    private let resources: Mutex<(lock: Int32, timer: any DispatchSourceTimer)?>
    /// Whether something was written since the last checkpoint.
    private let written = Atomic<Bool>(false)

    /// Opens (creating if needed) the data folder at `path`. Fails with a clear message when another process
    /// holds it, or when it cannot be created or read.
    public init(path: String) throws(DurableStoreError) {
        let folder = URL(fileURLWithPath: path).standardizedFileURL.path
        self.path = folder
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw DurableStoreError("the data directory \(folder) cannot be created: \(error.localizedDescription)")
        }
        let descriptor = try Self.acquireLock(in: folder)
        var configuration = Configuration()
        configuration.label = "hearth data"
        // The checkpointing connection may hold a lock for a moment: wait for it rather than fail a write.
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(
                sql: """
                    PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0;
                    PRAGMA journal_size_limit = \(Self.logLimit); PRAGMA mmap_size = 1073741824
                    """)
        }
        do {
            queue = try DatabaseQueue(path: folder + "/" + Self.databaseName, configuration: configuration)
            checkpointer = try DatabaseQueue(path: folder + "/" + Self.databaseName, configuration: configuration)
            try queue.write { db in
                try db.execute(
                    sql: """
                        CREATE TABLE IF NOT EXISTS entries (
                            space TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL, PRIMARY KEY (space, key)
                        ) WITHOUT ROWID
                        """)
            }
        } catch {
            closeDescriptor(descriptor)
            throw DurableStoreError("the data directory \(folder) cannot be opened: \(error)")
        }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "hearth data checkpoints", qos: .utility))
        timer.schedule(deadline: .now() + Self.checkpointInterval, repeating: Self.checkpointInterval)
        resources = Mutex((descriptor, timer))
        resources.withLock { resources in
            resources?.timer.setEventHandler { [weak self] in
                guard let self, written.exchange(false, ordering: .relaxed) else { return }
                // A passive checkpoint never waits for a write, but under writes that never pause the log is never
                // fully moved, and so never starts over: past its limit, writes wait for one that restarts it.
                let log = (try? FileManager.default.attributesOfItem(atPath: path + "/" + Self.databaseName + "-wal")[.size] as? Int) ?? 0
                let mode = log > Self.logLimit ? "RESTART" : "PASSIVE"
                try? checkpointer.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(\(mode))") }
            }
            resources?.timer.resume()
        }
    }

    /// The write-ahead log's size past which a checkpoint makes writes wait until it starts over (64 MiB): the
    /// log's disk use stays bounded, and so does the time a restart takes to read it.
    private static let logLimit = 64 << 20

    /// How often the log is moved into the database while writes go on.
    private static let checkpointInterval = DispatchTimeInterval.milliseconds(250)

    deinit { close() }

    /// Closes the database and lets go of the folder, so another process (or store) may open it; writes
    /// after this fail. Closing again does nothing.
    public func close() {
        resources.withLock { open in
            guard let (descriptor, timer) = open else { return }
            timer.cancel()
            // Leaves the folder as one database file, its log emptied.
            try? checkpointer.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            try? checkpointer.close()
            try? queue.close()
            closeDescriptor(descriptor)
            open = nil
        }
    }

    /// Takes `hearth.lock` in `folder` (an advisory lock the OS drops when the process ends, however it ends)
    /// and writes this process's id into it; fails naming the holder's.
    private static func acquireLock(in folder: String) throws(DurableStoreError) -> Int32 {
        let lockPath = folder + "/hearth.lock"
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw DurableStoreError("the data directory \(folder) cannot be written: \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder = (try? String(contentsOfFile: lockPath, encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            closeDescriptor(descriptor)
            throw DurableStoreError(
                "the data directory \(folder) is in use by another hearth process"
                    + (holder.isEmpty ? "" : " (pid \(holder))") + "; stop it or choose another data directory")
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        return descriptor
    }

    /// Whether a data folder has been opened at `path` before (its database exists).
    public static func holdsData(at path: String) -> Bool {
        FileManager.default.fileExists(atPath: URL(fileURLWithPath: path).standardizedFileURL.path + "/" + databaseName)
    }

    /// The database file's name in the folder.
    private static let databaseName = "hearth.sqlite"

    /// The folder itself: each emulator keeps its files in a subfolder of it.
    public var filesFolder: String { path }

    /// Applies `changes` in one SQLite transaction; in the write-ahead log when this returns.
    public func write(_ changes: some Sequence<DurableChange>) throws(DurableStoreError) {
        written.store(true, ordering: .relaxed)
        do {
            try queue.write { db in
                var put: Statement?
                var delete: Statement?
                var clear: Statement?
                for change in changes {
                    switch change {
                    case .put(let space, let key, let value):
                        if put == nil {
                            put = try db.cachedStatement(
                                sql: "INSERT OR REPLACE INTO entries (space, key, value) VALUES (?, ?, ?)")
                        }
                        try Self.run(put!, space, key, value)
                    case .delete(let space, let key):
                        if delete == nil {
                            delete = try db.cachedStatement(sql: "DELETE FROM entries WHERE space = ? AND key = ?")
                        }
                        try Self.run(delete!, space, key, nil)
                    case .deleteSpace(let space):
                        if clear == nil { clear = try db.cachedStatement(sql: "DELETE FROM entries WHERE space = ?") }
                        try Self.run(clear!, space, nil, nil)
                    }
                }
            }
        } catch {
            throw DurableStoreError("the data directory \(path) cannot be written: \(error)")
        }
    }

    /// Binds the statement's parameters directly (no argument values are made per row) and steps it once.
    private static func run(_ statement: Statement, _ space: String, _ key: String?, _ value: [UInt8]?) throws {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        bind(space, at: 1, in: handle)
        if let key { bind(key, at: 2, in: handle) }
        if let value {
            value.withUnsafeBytes { bytes in
                // A zero-length blob still needs a non-null pointer, or SQLite stores NULL.
                _ = sqlite3_bind_blob(handle, 3, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count), transient)
            }
        }
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else {
            throw DurableStoreError(String(cString: sqlite3_errmsg(sqlite3_db_handle(handle))))
        }
    }

    /// Binds `text` as UTF-8 of its full length: a NUL inside it is kept (SQLite would stop there otherwise).
    private static func bind(_ text: String, at index: Int32, in handle: OpaquePointer?) {
        var text = text
        text.withUTF8 { utf8 in
            _ = sqlite3_bind_text(
                handle, index, UnsafeRawPointer(utf8.baseAddress ?? UnsafePointer(bitPattern: 1)!).assumingMemoryBound(to: CChar.self),
                Int32(utf8.count), transient)
        }
    }

    /// Steps through `space`'s rows in key order, handing out SQLite's own buffers.
    public func scanBytes(_ space: String, _ body: (_ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) throws -> Void) throws {
        try queue.read { db in
            let statement = try db.makeStatement(sql: "SELECT key, value FROM entries WHERE space = ? ORDER BY key")
            let handle = statement.sqliteStatement
            Self.bind(space, at: 1, in: handle)
            while true {
                let code = sqlite3_step(handle)
                if code == SQLITE_DONE { break }
                guard code == SQLITE_ROW else {
                    throw DurableStoreError(
                        "the data directory \(path) cannot be read: \(String(cString: sqlite3_errmsg(db.sqliteConnection)))")
                }
                let key = UnsafeRawBufferPointer(start: sqlite3_column_text(handle, 0), count: Int(sqlite3_column_bytes(handle, 0)))
                let value = UnsafeRawBufferPointer(start: sqlite3_column_blob(handle, 1), count: Int(sqlite3_column_bytes(handle, 1)))
                try body(key, value)
            }
        }
    }

    /// The spaces that hold entries and start with `prefix`, sorted.
    public func spaces(prefix: String) throws(DurableStoreError) -> [String] {
        do {
            return try queue.read { db in
                // Distinct spaces by skipping from one to the next: one index seek per space, not a scan.
                var result: [String] = []
                var after = prefix
                var first = true
                while let space = try String.fetchOne(
                    db, sql: first ? "SELECT space FROM entries WHERE space >= ? ORDER BY space LIMIT 1"
                        : "SELECT space FROM entries WHERE space > ? ORDER BY space LIMIT 1",
                    arguments: [after]), space.utf8.starts(with: prefix.utf8)
                {
                    result.append(space)
                    after = space
                    first = false
                }
                return result
            }
        } catch {
            throw DurableStoreError("the data directory \(path) cannot be read: \(error)")
        }
    }

    /// SQLite copies what is bound (`SQLITE_TRANSIENT`).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

/// Closes a file descriptor (a free function: inside `DataDirectory`, `close` is its own method).
private func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}
