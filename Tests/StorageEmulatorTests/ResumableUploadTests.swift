import EmulatorCore
import Testing

@testable import StorageEmulator

/// `ResumableUpload`, the resumable protocol both Storage APIs drive, event by event without I/O: every event
/// in every status, and the two protocols' request sequences translated into its events.
@Suite struct ResumableUploadTests {
    typealias Refusal = ResumableUpload.Refusal

    static let alice = Credential.user(AuthToken(claims: ["sub": "alice"])!)

    private func upload(declaredSize: Int64? = nil, metadata: JSONValue = [:], contentType: String? = nil)
        -> ResumableUpload
    {
        ResumableUpload(
            id: "u", bucket: "b", name: "o", metadata: metadata, contentType: contentType, credential: Self.alice,
            declaredSize: declaredSize)
    }

    /// The upload with `bytes` bytes received.
    private func upload(received bytes: Int64, declaredSize: Int64? = nil) throws -> ResumableUpload {
        var upload = upload(declaredSize: declaredSize)
        _ = try upload.receive(chunkAt: 0, length: bytes)
        upload.appended(bytes)
        return upload
    }

    @Test func theStartRecordsTheMetadataAndItsContentType() {
        let started = upload(metadata: ["metadata": ["take": "3"]], contentType: "video/mp4")
        #expect(started.metadata == ["metadata": ["take": "3"], "contentType": "video/mp4"])
        #expect(started.progress == .init(received: 0, status: .active))
        let typed = upload(metadata: ["contentType": "image/png"], contentType: "video/mp4")
        #expect(typed.metadata == ["contentType": "image/png"], "the metadata's own type wins over the header")
        #expect(upload(metadata: "not an object").metadata == [:])
    }

    @Test func aFinalizeCarriesWhatTheStartRecorded() throws {
        var upload = upload(metadata: ["cacheControl": "no-cache"], contentType: "application/pdf")
        #expect(
            try upload.complete(.now)
                == .finalize(
                    .init(
                        bucket: "b", name: "o", metadata: ["cacheControl": "no-cache", "contentType": "application/pdf"],
                        credential: Self.alice)))
        #expect(upload.progress == .init(received: 0, status: .final), "an empty upload is final too")
    }

    @Test func anAppendIsBoundByTheDeclaredSize() throws {
        let upload = upload(declaredSize: 10)
        #expect(try upload.receive(chunkAt: 0, length: 10) == .init(skip: 0, limit: 10))
        #expect(try self.upload().receive(chunkAt: nil, length: nil) == .init(skip: 0, limit: nil))
    }

    @Test func refusedChunksChangeNothing() throws {
        var upload = try upload(received: 5, declaredSize: 8)
        #expect(throws: Refusal.gap(expected: 5, got: 6)) { try upload.receive(chunkAt: 6, length: 1) }
        #expect(throws: Refusal.beyondDeclaredSize(8)) { try upload.receive(chunkAt: 0, length: 9) }
        #expect(upload.progress == .init(received: 5, status: .active))
        #expect(try upload.receive(chunkAt: 0, length: 8) == .init(skip: 5, limit: 8), "a retry of it all")
        #expect(throws: Refusal.beyondDeclaredSize(8)) { try upload.receive(chunkAt: 4, length: 5) }
        upload.appended(3)
        #expect(try upload.complete(.now) == .finalize(.init(bucket: "b", name: "o", metadata: [:], credential: Self.alice)))
    }

    @Test func completionsDecideWhetherTheUploadGoesOn() throws {
        let five = try upload(received: 5)
        var upload = five
        #expect(try upload.complete(.later) == .progress(.init(received: 5, status: .active)))
        #expect(try upload.complete(.atTotal(6)) == .progress(.init(received: 5, status: .active)))
        #expect(throws: Refusal.beyondTotal(4)) { try upload.complete(.atTotal(4)) }
        #expect(upload.progress == .init(received: 5, status: .active), "more than the total keeps the upload open")
        #expect(try upload.complete(.atTotal(5)) == .finalize(.init(bucket: "b", name: "o", metadata: [:], credential: Self.alice)))
        #expect(upload.status == .final)
        upload = five
        #expect(try upload.complete(.now) == .finalize(.init(bucket: "b", name: "o", metadata: [:], credential: Self.alice)))
    }

    /// Every event in every status: what it answers, and the status after it.
    @Test(arguments: Status.allCases)
    func everyEventInEveryStatus(_ status: Status) throws {
        var upload = try upload(received: 2)
        switch status {
        case .active: break
        case .final: _ = try upload.complete(.now)
        case .answered403:
            _ = try upload.complete(.now)
            upload.answered(403)
        case .cancelled: try upload.cancel()
        }
        let before = upload.progress
        #expect(before.received == 2, "a query answers in every status")
        let refusal: Refusal? =
            switch status {
            case .active: nil
            case .final: .alreadyFinal(previous: 200)
            case .answered403: .alreadyFinal(previous: 403)
            case .cancelled: .notActive
            }
        if let refusal {
            #expect(throws: refusal) { try upload.receive(chunkAt: 2, length: 1) }
            for completion in [ResumableUpload.Completion.later, .now, .atTotal(2)] {
                var copy = upload
                #expect(throws: refusal) { try copy.complete(completion) }
                #expect(copy.progress == before)
            }
        } else {
            #expect(try upload.receive(chunkAt: 2, length: 1) == .init(skip: 0, limit: nil))
            #expect(try upload.complete(.later) == .progress(before))
        }
        var cancelled = upload
        if before.status == .final {
            #expect(throws: Refusal.notCancellable) { try cancelled.cancel() }
            #expect(cancelled.progress == before)
        } else {
            try cancelled.cancel()  // again, when it was cancelled already
            #expect(cancelled.progress == .init(received: 2, status: .cancelled))
        }
    }

    /// The statuses an upload can be in, a final one with its finalize's answer recorded or not.
    enum Status: CaseIterable, Sendable {
        case active, final, answered403, cancelled
    }

    /// The web SDK: `upload` at 0, a failed chunk found out by `query`, then `upload, finalize` from there,
    /// a repeated `finalize`.
    @Test func firebaseCommandsAsEvents() throws {
        var upload = upload(declaredSize: 8)
        #expect(try upload.receive(chunkAt: 0, length: 5).skip == 0)
        upload.appended(5)
        #expect(try upload.complete(.later) == .progress(.init(received: 5, status: .active)))
        #expect(throws: Refusal.gap(expected: 5, got: 7)) { try upload.receive(chunkAt: 7, length: 1) }
        #expect(upload.progress.received == 5)
        #expect(try upload.receive(chunkAt: 3, length: 5).skip == 2)
        upload.appended(3)
        guard case .finalize = try upload.complete(.now) else {
            Issue.record("upload, finalize finalizes")
            return
        }
        upload.answered(200)
        #expect(throws: Refusal.alreadyFinal(previous: 200)) { try upload.complete(.now) }
        #expect(upload.progress == .init(received: 8, status: .final))
    }

    /// google-resumable-media: `bytes 0-3/*` (308), a status check `bytes */*`, the last chunk `bytes 4-5/6`
    /// (the object), then a check `bytes */6` after it.
    @Test func cloudStorageRangesAsEvents() throws {
        var upload = upload()
        #expect(try upload.receive(chunkAt: 0, length: 4).skip == 0)
        upload.appended(4)
        #expect(try upload.complete(.later) == .progress(.init(received: 4, status: .active)))
        #expect(try upload.complete(.later) == .progress(.init(received: 4, status: .active)))
        #expect(try upload.receive(chunkAt: 4, length: 2).skip == 0)
        upload.appended(2)
        #expect(try upload.complete(.atTotal(6)) == .finalize(.init(bucket: "b", name: "o", metadata: [:], credential: Self.alice)))
        upload.answered(200)
        #expect(throws: Refusal.alreadyFinal(previous: 200)) { try upload.complete(.atTotal(6)) }
    }

    @Test func refusalsSayWhatWasWrong() {
        #expect(Refusal.gap(expected: 5, got: 7).description == "Invalid upload offset 7: 5 bytes were received.")
        #expect(Refusal.notActive.description == "The upload is not active: it was cancelled.")
        #expect(Refusal.beyondDeclaredSize(8).description == "The upload is larger than its declared size of 8 bytes.")
        #expect(Refusal.beyondTotal(4).description == "The upload has more bytes than its total of 4.")
        #expect(Refusal.notCancellable.description == "The upload is already final and cannot be cancelled.")
    }
}
