import EmulatorCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// An object's bytes as a streamed response, read from its blob a slice at a time (memory stays flat for
/// any size), with `Range` (206) and the headers the official emulator sends (`x-goog-hash`,
/// `x-goog-generation`, `Content-Disposition` with the file name, `ETag`...).
enum ObjectDownload {
    /// How much is read from disk per write.
    static let slice = 1 << 20

    /// The response for `object`, honouring the `Range` header `range`. A gzip-encoded object goes out
    /// decompressed (no `Content-Encoding`, no range) unless `acceptEncoding` accepts gzip, as Cloud
    /// Storage's decompressive transcoding does.
    static func response(
        for object: StoredObject, range: String?, acceptEncoding: String? = nil, store: ObjectStore
    ) throws -> Response {
        var headers: HTTPFields = [
            .acceptRanges: "bytes", .contentType: object.contentType ?? "application/octet-stream",
            .eTag: object.etag, .cacheControl: object.cacheControl ?? "no-cache",
            .contentDisposition: "\(object.contentDisposition ?? "attachment"); filename*=\(rfc5987(fileName(object.name)))",
            .googGeneration: String(object.generation), .googMetageneration: String(object.metageneration),
            .googStorageClass: object.storageClass, .googHash: "crc32c=\(object.crc32c),md5=\(object.md5Hash)",
        ]
        if let language = object.contentLanguage { headers[.contentLanguage] = language }
        guard let reader = store.reader(of: object.blob) else {
            throw APIError(code: 404, message: "Not Found.", status: nil, reason: nil)
        }
        if object.contentEncoding?.lowercased() == "gzip", acceptEncoding?.lowercased().contains("gzip") != true {
            // Decompressed as it streams out: no length up front, no ranges.
            headers[.acceptRanges] = nil
            return Response(
                status: .ok, headers: headers, body: streamed(reader, from: 0, upTo: object.size, gunzip: true))
        }
        if let encoding = object.contentEncoding { headers[.contentEncoding] = encoding }
        var start: Int64 = 0
        var end = object.size  // exclusive
        var status = HTTPResponse.Status.ok
        if let range, let requested = ByteRange(parsing: range) {
            guard let (first, last) = requested.resolve(size: object.size) else {
                headers[.contentRange] = "bytes */\(object.size)"
                return Response(
                    status: .rangeNotSatisfiable, headers: headers,
                    body: ResponseBody(byteBuffer: ByteBuffer(string: "Requested range not satisfiable")))
            }
            start = first
            end = last + 1
            status = .partialContent
            headers[.contentRange] = "bytes \(first)-\(last)/\(object.size)"
        }
        return Response(status: status, headers: headers, body: streamed(reader, from: start, upTo: end, gunzip: false))
    }

    /// Bytes `from..<upTo` of a blob, read a slice at a time, gunzipped on the way when `gunzip` (then the
    /// length is not known up front).
    private static func streamed(_ reader: BlobReader, from: Int64, upTo: Int64, gunzip: Bool) -> ResponseBody {
        let box = ReaderBox(reader: reader)
        return ResponseBody(contentLength: gunzip ? nil : Int(upTo - from)) { writer in
            let decompressor = gunzip ? try Inflater(.gzip) : nil
            var offset = from
            while offset < upTo {
                let buffer = try box.reader.buffer(at: offset, count: Int(min(Int64(slice), upTo - offset)))
                guard buffer.readableBytes > 0 else { break }
                offset += Int64(buffer.readableBytes)
                if let decompressor {
                    let plain = try decompressor.decompress(Array(buffer.readableBytesView))
                    if !plain.isEmpty { try await writer.write(ByteBuffer(bytes: plain)) }
                } else {
                    try await writer.write(buffer)
                }
            }
            try await writer.finish(nil)
        }
    }

    /// The last segment of an object name (the downloaded file's name).
    static func fileName(_ name: String) -> String {
        String(name.split(separator: "/", omittingEmptySubsequences: false).last ?? Substring(name))
    }

    /// RFC 5987 percent-encoding of a header parameter value.
    static func rfc5987(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
        allowed.insert(charactersIn: "!#$&+-.^_`|~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}

/// A `Range: bytes=...` header's first range.
struct ByteRange: Equatable {
    /// `bytes=a-b`, `bytes=a-` or `bytes=-n` (the last n bytes).
    var first: Int64?
    var last: Int64?

    /// Reads the header; `nil` if it is not a byte range (then it is ignored, as HTTP says).
    init?(parsing header: String) {
        guard header.lowercased().hasPrefix("bytes=") else { return nil }
        let spec = header.dropFirst("bytes=".count).split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        first = parts[0].isEmpty ? nil : Int64(parts[0])
        last = parts[1].isEmpty ? nil : Int64(parts[1])
        if (first == nil && !parts[0].isEmpty) || (last == nil && !parts[1].isEmpty) || (first == nil && last == nil) {
            return nil
        }
        if let first, let last, last < first { return nil }
    }

    /// The inclusive byte positions in an object of `size` bytes; `nil` if none can be served (416).
    func resolve(size: Int64) -> (Int64, Int64)? {
        if let first {
            guard first < size else { return nil }
            return (first, min(last ?? size - 1, size - 1))
        }
        guard let last, last > 0, size > 0 else { return nil }
        return (max(0, size - last), size - 1)
    }
}

/// Holds a blob reader for a response body's closure.
private final class ReaderBox: @unchecked Sendable {
    // Only the response body's one writer task reads through it.
    let reader: BlobReader
    init(reader: BlobReader) { self.reader = reader }
}

extension HTTPField.Name {
    static let googGeneration = Self("x-goog-generation")!
    static let googMetageneration = Self("x-goog-metageneration")!
    static let googStorageClass = Self("x-goog-storage-class")!
    static let googHash = Self("x-goog-hash")!
    static let googUploadStatus = Self("X-Goog-Upload-Status")!
    static let googUploadURL = Self("X-Goog-Upload-URL")!
    static let googUploadChunkGranularity = Self("X-Goog-Upload-Chunk-Granularity")!
    static let googUploadControlURL = Self("X-Goog-Upload-Control-URL")!
    static let googUploadSizeReceived = Self("X-Goog-Upload-Size-Received")!
    static let googUploadID = Self("x-gupload-uploadid")!
    static let guploaderUploadID = Self("X-GUploader-UploadID")!
    static let googUploadProtocol = Self("X-Goog-Upload-Protocol")!
    static let googUploadCommand = Self("X-Goog-Upload-Command")!
    static let googUploadOffset = Self("X-Goog-Upload-Offset")!
    static let googUploadHeaderContentLength = Self("X-Goog-Upload-Header-Content-Length")!
    static let googUploadHeaderContentType = Self("X-Goog-Upload-Header-Content-Type")!
    static let httpMethodOverride = Self("X-HTTP-Method-Override")!
    static let uploadContentType = Self("X-Upload-Content-Type")!
    static let uploadContentLength = Self("X-Upload-Content-Length")!
}
