import CZlib

/// Streaming gzip decompression (zlib), for serving a `Content-Encoding: gzip` object to a client that
/// does not accept gzip (Cloud Storage's decompressive transcoding).
final class Gunzip {
    private var stream = z_stream()
    private var finished = false

    /// A decompressor for one gzip stream; `nil` if zlib cannot start one.
    init?() {
        let status = inflateInit2_(&stream, 16 + MAX_WBITS, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { return nil }
    }

    deinit { inflateEnd(&stream) }

    /// The bytes `input` decompresses to (bytes after the end of the gzip stream are ignored).
    func decompress(_ input: [UInt8]) throws -> [UInt8] {
        guard !finished, !input.isEmpty else { return [] }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var input = input
        try input.withUnsafeMutableBufferPointer { inBuffer in
            stream.next_in = inBuffer.baseAddress
            stream.avail_in = uInt(inBuffer.count)
            repeat {
                let status = chunk.withUnsafeMutableBufferPointer { outBuffer -> Int32 in
                    stream.next_out = outBuffer.baseAddress
                    stream.avail_out = uInt(outBuffer.count)
                    return inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunk.count - Int(stream.avail_out)
                output += chunk[..<produced]
                if status == Z_STREAM_END {
                    finished = true
                    break
                }
                guard status == Z_OK || status == Z_BUF_ERROR else { throw GunzipError(status: status) }
                if status == Z_BUF_ERROR, stream.avail_in == 0 { break }
            } while stream.avail_in > 0 || stream.avail_out == 0
            stream.next_in = nil
        }
        return output
    }
}

/// zlib refused the data (not gzip, or corrupt).
struct GunzipError: Error {
    var status: Int32
}
