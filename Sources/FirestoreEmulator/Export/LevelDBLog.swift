import EmulatorCore
import Foundation

/// The LevelDB log format, which the `output-N` files of a Firestore (managed) export are written in: the file
/// is a run of 32 KiB blocks; each record is a 7-byte header (masked CRC-32C of the type byte and the payload,
/// little-endian; payload length, 2 bytes little-endian; type) and its payload. A record that does not fit in
/// what is left of a block is cut into a first, middle and last fragment; a block tail shorter than a header
/// is zero-filled.
enum LevelDBLog {
    /// The size of a block.
    static let blockSize = 32768
    /// The size of a fragment's header.
    static let headerSize = 7

    /// A fragment's type byte.
    enum Fragment: UInt8 {
        case full = 1
        case first = 2
        case middle = 3
        case last = 4
    }

    /// The checksum LevelDB stores: CRC-32C of the type byte and the payload, rotated and offset so that a
    /// CRC of data holding CRCs stays meaningful.
    static func maskedChecksum(type: UInt8, payload: UnsafeRawBufferPointer) -> UInt32 {
        var crc = CRC32C()
        withUnsafeBytes(of: type) { crc.update($0) }
        crc.update(payload)
        let value = crc.value
        return ((value >> 15) | (value << 17)) &+ 0xa282_ead8
    }
}

/// Appends records to a LevelDB log file, buffering writes; `finish()` flushes and syncs the file.
struct LevelDBLogWriter: ~Copyable {
    private let file: FileHandle
    private var buffer: [UInt8] = []
    private var blockOffset = 0
    /// The bytes written so far (the file's size after `finish()`).
    private(set) var size = 0

    /// A writer that creates (or truncates) the file at `url`.
    init(creating url: URL) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: url.path])
        }
        file = try FileHandle(forWritingTo: url)
        buffer.reserveCapacity(1 << 20)
    }

    /// Appends one record.
    mutating func append(_ record: [UInt8]) throws {
        var start = 0
        var first = true
        while true {
            let room = LevelDBLog.blockSize - blockOffset
            let length = min(record.count - start, room - LevelDBLog.headerSize)
            let end = start + length
            let type: LevelDBLog.Fragment =
                switch (first, end == record.count) {
                case (true, true): .full
                case (true, false): .first
                case (false, true): .last
                case (false, false): .middle
                }
            let checksum = record.withUnsafeBytes {
                LevelDBLog.maskedChecksum(type: type.rawValue, payload: UnsafeRawBufferPointer(rebasing: $0[start..<end]))
            }
            withUnsafeBytes(of: checksum.littleEndian) { buffer.append(contentsOf: $0) }
            withUnsafeBytes(of: UInt16(length).littleEndian) { buffer.append(contentsOf: $0) }
            buffer.append(type.rawValue)
            buffer.append(contentsOf: record[start..<end])
            blockOffset += LevelDBLog.headerSize + length
            size += LevelDBLog.headerSize + length
            start = end
            first = false
            // A tail too short for a header is zero-filled at once, also after the last record: a file that ends
            // short of its block without it makes the official emulator's reader spin forever.
            let tail = LevelDBLog.blockSize - blockOffset
            if tail < LevelDBLog.headerSize {
                buffer.append(contentsOf: repeatElement(0, count: tail))
                size += tail
                blockOffset = 0
            }
            if buffer.count >= 1 << 20 { try flush() }
            if start == record.count { return }
        }
    }

    private mutating func flush() throws {
        try file.write(contentsOf: buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes what is buffered, syncs the file to disk and closes it.
    consuming func finish() throws {
        try flush()
        try file.synchronize()
        try file.close()
    }
}

/// Reads the records of a LevelDB log file in order, checking every fragment's checksum.
struct LevelDBLogReader {
    /// A file that is not a well-formed log.
    struct Corruption: Error, CustomStringConvertible {
        /// The byte offset of the bad fragment.
        var offset: Int
        /// What is wrong.
        var reason: String

        var description: String { "corrupt record at byte \(offset): \(reason)" }
    }

    private let data: Data
    private var offset = 0

    /// A reader over the file at `url` (mapped, not read into memory).
    init(contentsOf url: URL) throws {
        data = try Data(contentsOf: url, options: .alwaysMapped)
    }

    /// A reader over bytes in memory.
    init(data: Data) {
        self.data = data
    }

    /// The offset of the next record, for messages.
    var position: Int { offset }

    /// The next record, or `nil` at the end of the file.
    mutating func next() throws(Corruption) -> [UInt8]? {
        var record: [UInt8] = []
        var inRecord = false
        let start = offset
        while true {
            let room = LevelDBLog.blockSize - offset % LevelDBLog.blockSize
            if room < LevelDBLog.headerSize {
                offset += room
                continue
            }
            if offset >= data.count {
                guard !inRecord else { throw Corruption(offset: start, reason: "the file ends inside a record") }
                return nil
            }
            guard offset + LevelDBLog.headerSize <= data.count else {
                throw Corruption(offset: offset, reason: "the file ends inside a record header")
            }
            let header = offset
            let (checksum, length, typeByte) = data.withUnsafeBytes { bytes in
                (
                    bytes.loadUnaligned(fromByteOffset: header, as: UInt32.self).littleEndian,
                    Int(bytes.loadUnaligned(fromByteOffset: header + 4, as: UInt16.self).littleEndian),
                    bytes[header + 6]
                )
            }
            // A zeroed header pads out the rest of a block (a writer that preallocated).
            if typeByte == 0, length == 0, checksum == 0, !inRecord {
                offset += room
                continue
            }
            guard length <= room - LevelDBLog.headerSize, header + LevelDBLog.headerSize + length <= data.count else {
                throw Corruption(offset: header, reason: "a fragment of \(length) bytes runs past its block or the file")
            }
            let payload = header + LevelDBLog.headerSize..<header + LevelDBLog.headerSize + length
            let valid = data.withUnsafeBytes { bytes in
                LevelDBLog.maskedChecksum(type: typeByte, payload: UnsafeRawBufferPointer(rebasing: bytes[payload])) == checksum
            }
            guard valid else { throw Corruption(offset: header, reason: "checksum mismatch") }
            offset = payload.upperBound
            switch (LevelDBLog.Fragment(rawValue: typeByte), inRecord) {
            case (.full, false):
                return Array(data[payload])
            case (.first, false):
                record.append(contentsOf: data[payload])
                inRecord = true
            case (.middle, true):
                record.append(contentsOf: data[payload])
            case (.last, true):
                record.append(contentsOf: data[payload])
                return record
            default:
                throw Corruption(offset: header, reason: "unexpected fragment type \(typeByte)")
            }
        }
    }
}
