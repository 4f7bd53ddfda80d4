import Foundation
import Synchronization

/// Text files read once, then read again when they change: the rules files the emulators watch. Looked at
/// no more often than `interval`, as requests arrive (no timer, no file-system events).
public final class WatchedFiles: Sendable {
    /// The files' paths.
    public let paths: [String]
    private let interval: TimeInterval
    private let state: Mutex<(texts: [String], lastCheck: Date)>

    /// Reads `paths`; throws `UnreadableFile` naming the first that cannot be read.
    public init(paths: [String], interval: TimeInterval = 0.5) throws(UnreadableFile) {
        var texts: [String] = []
        for path in paths {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw UnreadableFile(path: path) }
            texts.append(text)
        }
        self.paths = paths
        self.interval = interval
        state = Mutex((texts, Date()))
    }

    /// The files' texts as last read, in the order of `paths`.
    public var texts: [String] { state.withLock { $0.texts } }

    /// Every file's text if one changed since they were last read, else `nil`. Files are looked at no more
    /// often than `interval`; a file that cannot be read now keeps its last text.
    public func changes() -> [String]? {
        let due = state.withLock { state -> [String]? in
            guard Date().timeIntervalSince(state.lastCheck) >= interval else { return nil }
            state.lastCheck = Date()
            return state.texts
        }
        guard let previous = due else { return nil }
        let current = zip(paths, previous).map { path, text in (try? String(contentsOfFile: path, encoding: .utf8)) ?? text }
        guard current != previous else { return nil }
        state.withLock { $0.texts = current }
        return current
    }
}

/// A file that cannot be read.
public struct UnreadableFile: Error, Sendable, Equatable {
    /// Its path.
    public var path: String

    /// The file at `path`.
    public init(path: String) { self.path = path }
}
