import EmulatorCore

/// One resumable upload's protocol as a value-type state machine, without I/O: Firebase v0's
/// `X-Goog-Upload-Command` (`upload`, `finalize`, `upload, finalize`, `query`, `cancel`) with
/// `X-Goog-Upload-Offset`, and the GCS JSON API's `Content-Range` chunks. The caller writes the bytes it
/// is told to keep and finalizes the object when told to.
struct ResumableUpload: Sendable {
    /// `X-Goog-Upload-Status`.
    enum Status: String, Sendable {
        case active, final, cancelled
    }

    /// Why a command is refused.
    enum Refusal: Error, Equatable {
        /// The upload was cancelled (or failed): 400.
        case notActive
        /// The upload was already finalized: answered with the first finalize's status.
        case alreadyFinal(previous: Int)
        /// The chunk starts after the bytes received (a gap): 400.
        case gap(expected: Int64, got: Int64)
        /// More bytes than the size declared at the start: 400.
        case beyondDeclaredSize(Int64)
        /// Cancelling a finalized upload: 400.
        case notCancellable
    }

    /// The upload id.
    let id: String
    /// The object's bucket and name.
    let bucket: String, name: String
    /// The metadata sent at the start.
    let metadata: JSONValue?
    /// The `Authorization` of the start request (the finalize is decided as its caller).
    let authorization: String?
    /// The total size announced at the start, if any.
    let declaredSize: Int64?
    /// The status.
    private(set) var status = Status.active
    /// How many bytes are kept.
    private(set) var received: Int64 = 0
    /// The HTTP status the finalize answered, for a repeated finalize.
    private(set) var finalStatus: Int?

    /// A new active upload.
    init(id: String, bucket: String, name: String, metadata: JSONValue?, authorization: String?, declaredSize: Int64?) {
        self.id = id
        self.bucket = bucket
        self.name = name
        self.metadata = metadata
        self.authorization = authorization
        self.declaredSize = declaredSize
    }

    /// A chunk of `length` bytes (when known) starting at `offset` (the bytes the client believes were
    /// received; `nil` when it does not say): how many of its first bytes were already received and must be
    /// skipped. A retried chunk overlaps what was kept; a chunk after a gap is refused.
    func plan(offset: Int64?, length: Int64?) throws(Refusal) -> Int64 {
        try checkActive()
        let start = offset ?? received
        guard start >= 0, start <= received else { throw .gap(expected: received, got: start) }
        let skip = received - start
        if let declaredSize, let length, length >= skip, received + (length - skip) > declaredSize {
            throw .beyondDeclaredSize(declaredSize)
        }
        return skip
    }

    /// `count` more bytes were kept.
    mutating func kept(_ count: Int64) {
        received += count
    }

    /// Finalizes: the object is to be written from the bytes kept.
    mutating func finalize() throws(Refusal) {
        try checkActive()
        status = .final
    }

    /// Records the status the finalize answered (a repeated finalize answers it again).
    mutating func answered(_ httpStatus: Int) {
        finalStatus = httpStatus
    }

    /// Cancels: the bytes kept are dropped, no object is written.
    mutating func cancel() throws(Refusal) {
        guard status != .final else { throw .notCancellable }
        status = .cancelled
    }

    private func checkActive() throws(Refusal) {
        switch status {
        case .active: return
        case .cancelled: throw .notActive
        case .final: throw .alreadyFinal(previous: finalStatus ?? 200)
        }
    }
}
