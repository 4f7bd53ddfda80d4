import EmulatorCore
import Foundation
import NIOCore
import Testing

@testable import StorageEmulator

/// The resumable upload state machine, multipart parsing, ranges and checksums, without I/O.
@Suite struct UploadProtocolTests {
    private func upload(declaredSize: Int64? = nil) -> ResumableUpload {
        ResumableUpload(
            id: "u", bucket: "b", name: "o", metadata: [:], contentType: nil, credential: .none, declaredSize: declaredSize)
    }

    @Test func chunksMustContinueWhereTheLastEnded() throws {
        var upload = upload()
        #expect(try upload.receive(chunkAt: 0, length: 5).skip == 0)
        upload.appended(5)
        #expect(try upload.receive(chunkAt: 5, length: 5).skip == 0)
        #expect(try upload.receive(chunkAt: nil, length: 5).skip == 0)  // no offset: appended
        #expect(try upload.receive(chunkAt: 2, length: 5).skip == 3)  // a retried chunk: its first 3 bytes are kept already
        #expect(throws: ResumableUpload.Refusal.gap(expected: 5, got: 7)) { try upload.receive(chunkAt: 7, length: 1) }
        #expect(throws: ResumableUpload.Refusal.gap(expected: 5, got: -1)) { try upload.receive(chunkAt: -1, length: 1) }
    }

    @Test func aDeclaredSizeBoundsTheUpload() throws {
        var upload = upload(declaredSize: 8)
        upload.appended(5)
        #expect(try upload.receive(chunkAt: 5, length: 3).skip == 0)
        #expect(throws: ResumableUpload.Refusal.beyondDeclaredSize(8)) { try upload.receive(chunkAt: 5, length: 4) }
        #expect(try upload.receive(chunkAt: 5, length: nil).skip == 0)  // chunked: the writer enforces the size
    }

    @Test func finalizeAndCancelFollowProductionStatuses() throws {
        var upload = upload()
        _ = try upload.complete(.now)
        upload.answered(403)
        #expect(upload.status == .final)
        #expect(throws: ResumableUpload.Refusal.alreadyFinal(previous: 403)) { try upload.complete(.now) }
        #expect(throws: ResumableUpload.Refusal.alreadyFinal(previous: 403)) { try upload.receive(chunkAt: 0, length: 1) }
        #expect(throws: ResumableUpload.Refusal.notCancellable) { try upload.cancel() }
        var cancelled = self.upload()
        try cancelled.cancel()
        #expect(throws: ResumableUpload.Refusal.notActive) { try cancelled.complete(.now) }
        #expect(throws: ResumableUpload.Refusal.notActive) { try cancelled.receive(chunkAt: 0, length: 1) }
    }

    @Test func multipartBodiesStreamTheirDataPart() async throws {
        let store = try ObjectStore()
        let body = "--B\r\nContent-Type: application/json; charset=utf-8\r\n\r\n{\"name\":\"a.pdf\",\"contentType\":\"application/pdf\"}\r\n--B\r\nContent-Type: application/pdf\r\n\r\n%PDF\r\n--B-- trailing\r\n--B\r\n"
        // Delivered a few bytes at a time, so delimiters straddle chunks.
        let bytes = Array(body.utf8)
        let chunks = stride(from: 0, to: bytes.count, by: 3).map { ByteBuffer(bytes: bytes[$0..<min($0 + 3, bytes.count)]) }
        let writer = try store.newBlob()
        let parts = try await MultipartRelated.read(AsyncStreamOf(chunks), boundary: "B", into: writer, limit: 1 << 20)
        let blob = try await writer.finish()
        #expect(parts.metadata["name"] == "a.pdf")
        #expect(parts.contentType == "application/pdf")
        #expect(blob.size == 4)
        #expect(try contents(of: blob, in: store) == Array("%PDF".utf8))
    }

    @Test func truncatedMultipartBodiesAreRefused() async throws {
        let store = try ObjectStore()
        for body in [
            "--B\r\nContent-Type: application/json\r\n\r\n{}\r\n--B\r\nContent-Type: text/plain\r\n\r\nno closing boundary",
            "--B\r\nContent-Type: application/json\r\n\r\n{\"name\":",
            "--B\r\nContent-Type: application/json\r\n\r\nnot json\r\n--B\r\nContent-Type: text/plain\r\n\r\nx\r\n--B--",
        ] {
            let writer = try store.newBlob()
            await #expect(throws: UploadError.self) {
                _ = try await MultipartRelated.read(
                    AsyncStreamOf([ByteBuffer(string: body)]), boundary: "B", into: writer, limit: 1 << 20)
            }
            writer.discard()
        }
        #expect(MultipartRelated.boundary(of: "multipart/related; boundary=\"abc\"") == "abc")
        #expect(MultipartRelated.boundary(of: "multipart/related") == nil)
    }

    @Test func rangesResolveAsHTTPSays() {
        #expect(ByteRange(parsing: "bytes=2-4")?.resolve(size: 10).map { [$0.0, $0.1] } == [2, 4])
        #expect(ByteRange(parsing: "bytes=7-")?.resolve(size: 10).map { [$0.0, $0.1] } == [7, 9])
        #expect(ByteRange(parsing: "bytes=-3")?.resolve(size: 10).map { [$0.0, $0.1] } == [7, 9])
        #expect(ByteRange(parsing: "bytes=5-100")?.resolve(size: 10).map { [$0.0, $0.1] } == [5, 9])
        #expect(ByteRange(parsing: "bytes=10-")?.resolve(size: 10) == nil)  // 416
        #expect(ByteRange(parsing: "bytes=4-2") == nil)  // ignored
        #expect(ByteRange(parsing: "items=1-2") == nil)
        let chunk = ContentRange(parsing: "bytes 0-262143/*")
        #expect(chunk?.first == 0 && chunk?.last == 262_143 && chunk?.total == nil)
        let finish = ContentRange(parsing: "bytes */1000")
        #expect(finish?.first == nil && finish?.total == 1000)
        #expect(ContentRange(parsing: "bytes 5-1/10") == nil)
    }

    @Test func gzipDecompressesAcrossChunks() throws {
        let compressed: [UInt8] = [
            31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 203, 72, 205, 201, 201, 87, 200, 64, 144, 0, 128, 136, 249, 229, 17, 0, 0, 0,
        ]
        let gunzip = try Inflater(.gzip)
        let plain = try gunzip.decompress(Array(compressed[..<9])) + gunzip.decompress(Array(compressed[9...]))
        #expect(String(decoding: plain, as: UTF8.self) == "hello hello hello")
        #expect(throws: InflateError.self) { try Inflater(.gzip).decompress(Array("not gzip at all".utf8)) }
    }

    @Test func checksumsMatchCloudStorage() {
        var crc = CRC32C()
        Array("hello world".utf8).withUnsafeBytes { crc.update($0) }
        #expect(crc.value == 0xC994_65AA)
        #expect(crc.base64 == "yZRlqg==")
        var split = CRC32C()  // incremental over uneven pieces, through the 8-byte fast path
        let long = Array(repeating: Array("123456789".utf8), count: 7).flatMap { $0 }
        long[..<13].withUnsafeBytes { split.update($0) }
        long[13...].withUnsafeBytes { split.update($0) }
        var whole = CRC32C()
        long.withUnsafeBytes { whole.update($0) }
        #expect(split.value == whole.value)
        var check = CRC32C()
        Array("123456789".utf8).withUnsafeBytes { check.update($0) }
        #expect(check.value == 0xE306_9283)  // the CRC-32C check value
    }
}

/// A finite async sequence of buffers, as a request body delivers them.
struct AsyncStreamOf: AsyncSequence, Sendable {
    let buffers: [ByteBuffer]
    init(_ buffers: [ByteBuffer]) { self.buffers = buffers }
    func makeAsyncIterator() -> Iterator { Iterator(buffers: buffers) }
    struct Iterator: AsyncIteratorProtocol {
        var buffers: [ByteBuffer]
        mutating func next() async throws -> ByteBuffer? { buffers.isEmpty ? nil : buffers.removeFirst() }
    }
}
