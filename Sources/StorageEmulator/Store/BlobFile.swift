import Crypto
import EmulatorCore
import Foundation
import NIOCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An object's bytes: a file in the store's directory, named by a random id, never by the object's name.
struct Blob: Sendable, Equatable, Codable {
    /// The file's name in the store's directory.
    var id: String
    /// How many bytes.
    var size: Int64
    /// The MD5 digest.
    var md5: [UInt8]
    /// The CRC-32C checksum.
    var crc32c: UInt32
}

/// Writes a new blob as its bytes stream in, without holding them in memory. The bytes are hashed (MD5,
/// CRC-32C) on a serial dispatch queue of their own while the next ones arrive, so the hashing neither waits
/// for the request nor holds one of the few threads that run the server's tasks. Either `finish()` (the blob
/// is complete) or `discard()` (its file is removed).
final class BlobWriter {
    /// The blob's id (its file name).
    let id: String
    private let path: String
    private var descriptor: Int32
    /// The serial queue that hashes the bytes, in order, on a thread of its own (not one of the
    /// concurrency pool's, which serve the requests).
    private let hashing = DispatchQueue(label: "hearth.storage.hash")
    private let hasher = BlobDigests()
    /// Bytes written but not hashed yet, and a writer waiting for them to go down.
    private let backlog = Backlog()
    /// The most bytes that may wait for hashing; `throttle()` waits beyond it (memory stays flat).
    static let backlogLimit = 8 << 20
    /// Bytes written so far.
    private(set) var size: Int64 = 0

    /// Creates an empty blob file in `directory`.
    init(directory: URL) throws {
        id = UUID().uuidString
        path = directory.appendingPathComponent(id).path
        descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw BlobError.cannotCreate(path, errno) }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Appends `buffer`.
    func write(_ buffer: ByteBuffer) throws {
        guard buffer.readableBytes > 0 else { return }
        if descriptor < 0 {
            descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
            guard descriptor >= 0 else { throw BlobError.cannotWrite(path, errno) }
        }
        try buffer.withUnsafeReadableBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw BlobError.cannotWrite(path, errno)
                }
                offset += written
            }
        }
        backlog.added(buffer.readableBytes)
        hashing.async { [hasher, backlog] in
            hasher.update(buffer)
            backlog.hashed(buffer.readableBytes)
        }
        size += Int64(buffer.readableBytes)
    }

    /// Waits while more than `backlogLimit` bytes wait for hashing.
    func throttle() async {
        await backlog.wait(below: Self.backlogLimit)
    }

    /// Appends `bytes`.
    func write(_ bytes: some Sequence<UInt8>) throws {
        try write(ByteBuffer(bytes: bytes))
    }

    /// Appends everything `reader` holds, a slice at a time, waiting for the hashing as an upload does: a
    /// copy of a 1 GiB file holds a few MiB of it at most.
    func append(contentsOf reader: BlobReader) async throws {
        var offset: Int64 = 0
        while true {
            let buffer = try reader.buffer(at: offset, count: Self.copyChunk)
            guard buffer.readableBytes > 0 else { return }
            try write(buffer)
            await throttle()
            offset += Int64(buffer.readableBytes)
        }
    }

    /// How much `append(contentsOf:)` reads at a time.
    static let copyChunk = 1 << 20

    /// Whether the file is open (a parked writer's is not).
    var holdsDescriptor: Bool { descriptor >= 0 }

    /// Closes the file until the next write: a resumable upload waiting for its next chunk (perhaps for
    /// ever: clients abandon uploads) holds no file descriptor.
    func park() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }

    /// Closes the file and waits for the hashes; the blob is complete.
    func finish() async throws -> Blob {
        let closed = descriptor >= 0 ? close(descriptor) : 0
        descriptor = -1
        guard closed == 0 else { throw BlobError.cannotWrite(path, errno) }
        let (md5, crc32c) = await withCheckedContinuation { (done: CheckedContinuation<([UInt8], UInt32), Never>) in
            hashing.async { [hasher] in done.resume(returning: hasher.finalize()) }
        }
        return Blob(id: id, size: size, md5: md5, crc32c: crc32c)
    }

    /// Closes and removes the file; bytes still waiting for the hashing queue are skipped.
    func discard() {
        hasher.stop()
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        unlink(path)
    }
}

/// MD5 and CRC-32C of a blob's bytes, updated on its writer's hashing queue only.
private final class BlobDigests: @unchecked Sendable {
    private var md5 = Insecure.MD5()
    private var crc = CRC32C()
    /// Set by a discarded writer (from its own thread): the bytes still queued are not worth hashing.
    private let stopped = Atomic<Bool>(false)

    func stop() {
        stopped.store(true, ordering: .relaxed)
    }

    func update(_ buffer: ByteBuffer) {
        guard !stopped.load(ordering: .relaxed) else { return }
        buffer.withUnsafeReadableBytes { bytes in
            md5.update(bufferPointer: bytes)
            crc.update(bytes)
        }
    }

    func finalize() -> ([UInt8], UInt32) {
        (Array(md5.finalize()), crc.value)
    }
}

/// Counts the bytes between a writer and its hashing queue, and parks the writer when they pile up.
private final class Backlog: Sendable {
    private let state = Mutex<(bytes: Int, waiter: CheckedContinuation<Void, Never>?, limit: Int)>((0, nil, .max))

    func added(_ count: Int) {
        state.withLock { $0.bytes += count }
    }

    func hashed(_ count: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.bytes = count == .max ? 0 : state.bytes - count
            guard state.bytes < state.limit, let waiter = state.waiter else { return nil }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    func wait(below limit: Int) async {
        // Most calls find the hashing keeping up: no suspension (and no executor hop) for them.
        guard state.withLock({ $0.bytes >= limit }) else { return }
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                guard state.bytes >= limit else { return true }
                state.waiter = waiter
                state.limit = limit
                return false
            }
            if ready { waiter.resume() }
        }
    }
}

/// Reads a blob's bytes (or an imported file's) in order, a slice at a time.
final class BlobReader {
    private let descriptor: Int32

    /// Opens `file`; `nil` if it is gone.
    init?(file: URL) {
        descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
    }

    deinit { close(descriptor) }

    /// Up to `count` bytes from `offset` (fewer at the end of the file), read straight into a buffer.
    func buffer(at offset: Int64, count: Int, allocator: ByteBufferAllocator = ByteBufferAllocator()) throws -> ByteBuffer {
        var buffer = allocator.buffer(capacity: count)
        var failure: Int32 = 0
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { bytes in
            let read = pread(descriptor, bytes.baseAddress!, count, off_t(offset))
            if read < 0 { failure = errno }
            return max(0, read)
        }
        if failure != 0 { throw BlobError.cannotRead(failure) }
        return buffer
    }
}

/// `write(2)` (the writer's own `write` hides it inside the class).
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}

/// A file-system failure of the blob store (never the client's fault: a 500).
enum BlobError: Error, CustomStringConvertible {
    case cannotCreate(String, Int32)
    case cannotWrite(String, Int32)
    case cannotRead(Int32)

    var description: String {
        switch self {
        case .cannotCreate(let path, let code): return "cannot create \(path): \(String(cString: strerror(code)))"
        case .cannotWrite(let path, let code): return "cannot write \(path): \(String(cString: strerror(code)))"
        case .cannotRead(let code): return "cannot read a blob: \(String(cString: strerror(code)))"
        }
    }
}
