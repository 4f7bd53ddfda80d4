import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Text files read once, then read again when they change: the rules files the emulators watch. Once
/// `watch` is called, a change is noticed when it happens (inotify on the files' folders, so an editor's
/// save-by-rename is seen too; where inotify is missing, the files are looked at every half second), and
/// the handler gets every file's new text. Requests never look at the files.
public final class WatchedFiles: Sendable {
    /// The files' paths.
    public let paths: [String]
    private let state: Mutex<[String]>
    /// Where change events are read: the inotify read source, or the polling timer.
    private let source: Mutex<EventSource?>
    private let queue = DispatchQueue(label: "hearth.watched-files")

    /// Reads `paths`; throws `UnreadableFile` naming the first file that cannot be read.
    public init(paths: [String]) throws(UnreadableFile) {
        var texts: [String] = []
        for path in paths {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { throw UnreadableFile(path: path) }
            texts.append(text)
        }
        self.paths = paths
        state = Mutex(texts)
        source = Mutex(nil)
    }

    deinit {
        stop()
    }

    /// The files' texts as last read, in the order of `paths`.
    public var texts: [String] { state.withLock { $0 } }

    /// Stops watching; the texts stay as last read.
    public func stop() {
        source.withLock { source in
            source?.source.cancel()
            source = nil
        }
    }

    /// Reads the files again and hands their texts to `onChange` if one changed; a file that cannot be read
    /// now (being replaced, deleted) keeps its last text.
    private func reread(_ onChange: @Sendable ([String]) -> Void) {
        let previous = texts
        let current = zip(paths, previous).map { path, text in (try? String(contentsOfFile: path, encoding: .utf8)) ?? text }
        guard current != previous else { return }
        state.withLock { $0 = current }
        onChange(current)
    }

    /// Starts watching (again): `onChange` runs, on a queue of the watcher's, with every file's text after
    /// one of them changed. It must not hold on to the watcher strongly.
    public func watch(onChange: @escaping @Sendable (_ texts: [String]) -> Void) {
        stop()
        #if canImport(Glibc)
        if let events = inotifySource(onChange) {
            let box = EventSource(events)
            source.withLock { $0 = box }
            return
        }
        #endif
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .milliseconds(500), repeating: .milliseconds(500))
        timer.setEventHandler { [weak self] in self?.reread(onChange) }
        timer.resume()
        let box = EventSource(timer)
        source.withLock { $0 = box }
    }

    #if canImport(Glibc)
    /// A read source on an inotify descriptor watching the files' folders for files written, moved in or
    /// created; `nil` when inotify is not available.
    private func inotifySource(_ onChange: @escaping @Sendable ([String]) -> Void) -> (any DispatchSourceProtocol)? {
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_ATTRIB)
        let folders = Set(paths.map { (($0 as NSString).deletingLastPathComponent as NSString).standardizingPath })
        for folder in folders where inotify_add_watch(descriptor, folder.isEmpty ? "." : folder, mask) < 0 {
            close(descriptor)
            return nil
        }
        let names = Set(paths.map { ($0 as NSString).lastPathComponent })
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
        source.setEventHandler { [weak self] in
            guard let self else { return }
            if Self.drain(descriptor).contains(where: { $0.isEmpty || names.contains($0) }) { reread(onChange) }
        }
        source.setCancelHandler { close(descriptor) }
        source.resume()
        return source
    }

    /// The names of the files the pending events of `descriptor` concern (empty for an event on a folder
    /// itself), reading until none is left.
    private static func drain(_ descriptor: Int32) -> [String] {
        var names: [String] = []
        let capacity = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: MemoryLayout<inotify_event>.alignment)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer, capacity)
            guard count > 0 else { return names }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                let nameStart = buffer.advanced(by: offset + MemoryLayout<inotify_event>.size)
                let length = Int(event.len)
                if length > 0 {
                    let bytes = UnsafeRawBufferPointer(start: nameStart, count: length)
                    names.append(String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self))
                } else {
                    names.append("")
                }
                offset += MemoryLayout<inotify_event>.size + length
            }
        }
    }
    #endif
}

/// A dispatch source, which is thread-safe but not marked `Sendable`.
private final class EventSource: @unchecked Sendable {
    let source: any DispatchSourceProtocol

    init(_ source: any DispatchSourceProtocol) { self.source = source }
}

/// A file that cannot be read.
public struct UnreadableFile: Error, Sendable, Equatable {
    /// Its path.
    public var path: String

    /// The file at `path`.
    public init(path: String) { self.path = path }
}
