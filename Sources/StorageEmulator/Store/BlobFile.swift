import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An object's bytes: a file in the store's directory, named by a random id, never by the object's name.
struct Blob: Sendable, Equatable {
    /// The file's name in the store's directory.
    var id: String
    /// How many bytes.
    var size: Int64
    /// The MD5 digest.
    var md5: [UInt8]
    /// The CRC-32C checksum.
    var crc32c: UInt32
}

/// Writes a new blob as its bytes stream in, hashing them on the way, without holding them in memory.
/// Either `finish()` (the blob is complete) or `discard()` (its file is removed).
final class BlobWriter {
    /// The blob's id (its file name).
    let id: String
    private let path: String
    private var descriptor: Int32
    private var md5 = Insecure.MD5()
    private var crc = CRC32C()
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

    /// Appends `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard !bytes.isEmpty else { return }
        md5.update(bufferPointer: bytes)
        crc.update(bytes)
        var offset = 0
        while offset < bytes.count {
            let written = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw BlobError.cannotWrite(path, errno)
            }
            offset += written
        }
        size += Int64(bytes.count)
    }

    /// Appends `bytes`.
    func write(_ bytes: some ContiguousBytes) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Closes the file; the blob is complete.
    func finish() throws -> Blob {
        guard close(descriptor) == 0 else {
            descriptor = -1
            throw BlobError.cannotWrite(path, errno)
        }
        descriptor = -1
        return Blob(id: id, size: size, md5: Array(md5.finalize()), crc32c: crc.value)
    }

    /// Closes and removes the file.
    func discard() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        unlink(path)
    }
}

/// Reads a blob's bytes in order, a slice at a time.
final class BlobReader {
    private let descriptor: Int32

    /// Opens blob `id` in `directory`; `nil` if it is gone.
    init?(directory: URL, id: String) {
        descriptor = open(directory.appendingPathComponent(id).path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
    }

    deinit { close(descriptor) }

    /// Up to `count` bytes from `offset` (fewer at the end of the file).
    func read(at offset: Int64, count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, count, off_t(offset)) }
        guard read >= 0 else { throw BlobError.cannotRead(errno) }
        bytes.removeLast(count - read)
        return bytes
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
