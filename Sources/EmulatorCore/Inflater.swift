import CZlib

/// Streaming zlib decompression: gzip (Cloud Storage's decompressive transcoding of `Content-Encoding: gzip`
/// objects) and zlib-wrapped deflate (gRPC's `grpc-encoding: deflate`).
public final class Inflater {
    /// The wrapping of the compressed bytes.
    public enum Format: Sendable {
        /// A gzip member (RFC 1952), as `Content-Encoding: gzip` and `grpc-encoding: gzip` carry it.
        case gzip
        /// A zlib stream (RFC 1950), as `grpc-encoding: deflate` carries it.
        case zlib
    }

    private var stream = z_stream()
    private var finished = false

    /// A decompressor for one stream in `format`; throws zlib's status if zlib cannot start one.
    public init(_ format: Format) throws(InflateError) {
        let windowBits = format == .gzip ? 16 + MAX_WBITS : MAX_WBITS
        let status = inflateInit2_(&stream, windowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw InflateError(status: status) }
    }

    deinit { inflateEnd(&stream) }

    /// The bytes `input` decompresses to (bytes after the end of the stream are ignored). Throws
    /// `InflateError` for bytes that are not in the format, and when the output would pass `limit` bytes.
    public func decompress(_ input: [UInt8], limit: Int = .max) throws(InflateError) -> [UInt8] {
        guard !finished, !input.isEmpty else { return [] }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var input = input
        var failure: InflateError?
        input.withUnsafeMutableBufferPointer { inBuffer in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = uInt(inBuffer.count)
            defer { stream.next_in = nil }
            repeat {
                let status = chunk.withUnsafeMutableBufferPointer { outBuffer -> Int32 in
                    stream.next_out = outBuffer.baseAddress
                    stream.avail_out = uInt(outBuffer.count)
                    return inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(stream.avail_out)
                guard output.count + produced <= limit else {
                    failure = InflateError(status: Z_BUF_ERROR, tooLarge: true)
                    return
                }
                output += chunk[..<produced]
                if status == Z_STREAM_END {
                    finished = true
                    return
                }
                guard status == Z_OK || status == Z_BUF_ERROR else {
                    failure = InflateError(status: status)
                    return
                }
                if status == Z_BUF_ERROR, stream.avail_in == 0 { return }
            } while stream.avail_in > 0 || stream.avail_out == 0
        }
        if let failure { throw failure }
        return output
    }
}

/// zlib refused the data (not in the format, or corrupt), or it decompresses to more than allowed.
public struct InflateError: Error {
    /// zlib's status.
    public var status: Int32
    /// The output passed the caller's limit.
    public var tooLarge: Bool

    /// zlib's `status`; `tooLarge` when the output passed the caller's limit.
    public init(status: Int32, tooLarge: Bool = false) {
        self.status = status
        self.tooLarge = tooLarge
    }
}
