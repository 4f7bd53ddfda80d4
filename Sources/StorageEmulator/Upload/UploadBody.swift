import EmulatorCore
import Foundation
import NIOCore

/// Streams request bodies into blobs: the bytes go to disk as they arrive, so memory stays flat whatever
/// the object's size.
enum UploadBody {
    /// Writes `body` to `writer`, dropping its first `skip` bytes (already received in an earlier try);
    /// refuses to go past `limit` bytes in the blob. Returns how many bytes were written.
    @discardableResult
    static func write(
        _ body: some AsyncSequence<ByteBuffer, any Error>, to writer: BlobWriter, skip: Int64 = 0, limit: Int64
    ) async throws -> Int64 {
        var toSkip = skip
        var written: Int64 = 0
        for try await buffer in body {
            var slice = buffer
            if toSkip > 0 {
                let dropped = Int(min(toSkip, Int64(slice.readableBytes)))
                slice.moveReaderIndex(forwardBy: dropped)
                toSkip -= Int64(dropped)
            }
            guard slice.readableBytes > 0 else { continue }
            guard writer.size + Int64(slice.readableBytes) <= limit else { throw UploadError.tooLarge(limit) }
            try writer.write(slice)
            await writer.throttle()
            written += Int64(slice.readableBytes)
        }
        return written
    }

    /// Reads a whole small body (metadata JSON) up to `limit` bytes.
    static func collect(_ body: some AsyncSequence<ByteBuffer, any Error>, limit: Int) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        for try await buffer in body {
            guard bytes.count + buffer.readableBytes <= limit else { throw UploadError.tooLarge(Int64(limit)) }
            bytes += buffer.readableBytesView
        }
        return bytes
    }
}

/// Why an upload's body is refused.
enum UploadError: Error, Equatable {
    /// The object would exceed the configured maximum size.
    case tooLarge(Int64)
    /// A `multipart/related` body that does not parse (the message says where).
    case badMultipart(String)
}

/// A `multipart/related` upload body read as it streams in: the first part is the object's JSON metadata,
/// the second its bytes, which go to a blob without being held in memory.
struct MultipartRelated {
    /// The metadata part, parsed.
    var metadata: JSONValue
    /// The `Content-Type` of the data part.
    var contentType: String?

    /// The most bytes a metadata part may have.
    static let metadataLimit = 1 << 20

    /// The boundary of a `Content-Type: multipart/related; boundary=...` header.
    static func boundary(of contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == "boundary" else { continue }
            let value = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// Reads `body` with `boundary`, writing the data part to `writer` (at most `limit` bytes).
    static func read(
        _ body: some AsyncSequence<ByteBuffer, any Error>, boundary: String, into writer: BlobWriter, limit: Int64
    ) async throws -> MultipartRelated {
        let delimiter = Array("\r\n--\(boundary)".utf8)
        // The first boundary may open the body without the CRLF before it.
        var pending: [UInt8] = Array("\r\n".utf8)
        var phase = Phase.preamble
        var metadata: [UInt8] = []
        var headers: [String: String] = [:]
        var dataType: String?
        var sawDataPart = false
        func advance() throws {
            while true {
                switch phase {
                case .preamble:
                    guard let found = search(delimiter, in: pending) else { return }
                    pending.removeFirst(found + delimiter.count)
                    phase = .afterDelimiter(next: .headers(part: 0))
                case .afterDelimiter(let next):
                    guard pending.count >= 2 else { return }
                    if pending[0] == UInt8(ascii: "-"), pending[1] == UInt8(ascii: "-") {
                        phase = .done
                        return
                    }
                    guard let lineEnd = search(Array("\r\n".utf8), in: pending) else { return }
                    pending.removeFirst(lineEnd + 2)  // transport padding, then CRLF
                    phase = next
                case .headers(let part):
                    guard let end = search(Array("\r\n\r\n".utf8), in: pending) else {
                        if pending.count > metadataLimit { throw UploadError.badMultipart("A part's headers are too long.") }
                        return
                    }
                    headers = parseHeaders(Array(pending[..<end]))
                    pending.removeFirst(end + 4)
                    if part == 0 {
                        phase = .metadata
                    } else {
                        dataType = headers["content-type"]
                        sawDataPart = true
                        phase = .data
                    }
                case .metadata:
                    guard let found = search(delimiter, in: pending) else {
                        if pending.count > metadataLimit { throw UploadError.badMultipart("The metadata part is too large.") }
                        return
                    }
                    metadata = Array(pending[..<found])
                    pending.removeFirst(found + delimiter.count)
                    phase = .afterDelimiter(next: .headers(part: 1))
                case .data:
                    if let found = search(delimiter, in: pending) {
                        try write(pending[..<found])
                        pending.removeFirst(found + delimiter.count)
                        phase = .afterDelimiter(next: .ignoredPart)
                    } else {
                        // Keep what could be the start of the delimiter.
                        let keep = min(pending.count, delimiter.count - 1)
                        try write(pending[..<(pending.count - keep)])
                        pending.removeFirst(pending.count - keep)
                        return
                    }
                case .ignoredPart:
                    guard let found = search(delimiter, in: pending) else {
                        pending.removeFirst(max(0, pending.count - delimiter.count))
                        return
                    }
                    pending.removeFirst(found + delimiter.count)
                    phase = .afterDelimiter(next: .ignoredPart)
                case .done:
                    pending.removeAll()
                    return
                }
            }
        }
        func write(_ bytes: ArraySlice<UInt8>) throws {
            guard !bytes.isEmpty else { return }
            guard writer.size + Int64(bytes.count) <= limit else { throw UploadError.tooLarge(limit) }
            try writer.write(bytes)
        }
        for try await buffer in body {
            pending += buffer.readableBytesView
            try advance()
        }
        guard dataType != nil || sawDataPart else { throw UploadError.badMultipart("Unexpected number of parts in request body") }
        guard phase == .done || phase == .afterDelimiter(next: .ignoredPart) else {
            throw UploadError.badMultipart(
                phase == .data || phase == .metadata || phase == .preamble
                    ? "Multipart body is missing its closing boundary." : "Multipart body ended in a part's headers.")
        }
        guard let json = try? JSONValue.parse(Data(metadata)), json.objectValue != nil else {
            throw UploadError.badMultipart("The metadata part is not a JSON object.")
        }
        return MultipartRelated(metadata: json, contentType: dataType)
    }

    private enum Phase: Equatable {
        case preamble
        indirect case afterDelimiter(next: Phase)
        case headers(part: Int)
        case metadata
        case data
        case ignoredPart
        case done
    }

    /// Header lines `Name: value`, names lower-cased.
    private static func parseHeaders(_ bytes: [UInt8]) -> [String: String] {
        var headers: [String: String] = [:]
        for line in String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()] =
                line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return headers
    }

    /// The index of the first occurrence of `needle` in `haystack`.
    private static func search(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count, let first = needle.first else { return nil }
        var index = 0
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first, haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
