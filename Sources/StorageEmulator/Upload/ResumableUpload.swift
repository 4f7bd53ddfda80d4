import EmulatorCore

/// One resumable upload's protocol as a value-type state machine, without I/O, driven alike by Firebase v0's
/// `X-Goog-Upload-Command` (`upload`, `finalize`, `upload, finalize`, `query`, `cancel`, with
/// `X-Goog-Upload-Offset`) and the GCS JSON API's `PUT`s with `Content-Range`. Its events: the start (`init`),
/// a chunk's arrival (`receive(chunkAt:length:)`) and the bytes the caller then appended (`appended(_:)`),
/// the end of a request (`complete(_:)`), the finalize's answer (`answered(_:)`), `cancel()`, and `progress`
/// for a query. Each returns what the caller does: append a request's body, answer with the progress, or write
/// the object with what the start recorded; refusals are thrown as `Refusal`s for each API to render.
struct ResumableUpload: Sendable {
    /// `X-Goog-Upload-Status`.
    enum Status: String, Sendable {
        case active, final, cancelled
    }

    /// How far an upload got: what a query answers, and an upload that goes on.
    struct Progress: Equatable, Sendable {
        /// How many bytes are kept.
        var received: Int64
        /// The status.
        var status: Status
    }

    /// What to do with a chunk's bytes: append the request's body to the bytes kept, after dropping its first
    /// `skip` bytes (received already, in an earlier try), and keep the upload within `limit` bytes (its
    /// declared size, if any); then report how many were appended.
    struct Append: Equatable, Sendable {
        /// How many of the body's first bytes were received already.
        var skip: Int64
        /// The most bytes the upload may hold (`nil`: no declared size).
        var limit: Int64?
    }

    /// Whether a request finalizes the upload once its bytes (if any) are appended.
    enum Completion: Equatable, Sendable {
        /// No: the upload goes on (Firebase's `upload`; GCS's `Content-Range: bytes a-b/*` and `*/*`).
        case later
        /// Yes, whatever was received (Firebase's `finalize`; a GCS `PUT` without `Content-Range`).
        case now
        /// When the bytes received reach this total; more than it is refused (GCS's `Content-Range: .../total`).
        case atTotal(Int64)
    }

    /// The object a finalized upload makes, as recorded at the start.
    struct Finalization: Equatable, Sendable {
        /// The object's bucket and name.
        var bucket: String, name: String
        /// The metadata sent at the start.
        var metadata: JSONValue
        /// Who started the upload (Firebase's rules decide the object's `create` as this caller).
        var credential: Credential
    }

    /// How a request ends.
    enum Outcome: Equatable, Sendable {
        /// The upload goes on: answer with its progress.
        case progress(Progress)
        /// The upload is final: write the object from the bytes kept, then report the answer's status with
        /// `answered(_:)`.
        case finalize(Finalization)
    }

    /// Why an event is refused.
    enum Refusal: Error, Equatable, CustomStringConvertible {
        /// The upload was cancelled.
        case notActive
        /// The upload was already finalized: the first finalize answered `previous` (an HTTP status).
        case alreadyFinal(previous: Int)
        /// The chunk starts after the bytes received (a gap).
        case gap(expected: Int64, got: Int64)
        /// More bytes than the size declared at the start.
        case beyondDeclaredSize(Int64)
        /// More bytes than the total a request said the upload has.
        case beyondTotal(Int64)
        /// Cancelling a finalized upload.
        case notCancellable

        /// What the refusal says to the client.
        var description: String {
            switch self {
            case .notActive: "The upload is not active: it was cancelled."
            case .alreadyFinal: "The upload is already final."
            case .gap(let expected, let got): "Invalid upload offset \(got): \(expected) bytes were received."
            case .beyondDeclaredSize(let size): "The upload is larger than its declared size of \(size) bytes."
            case .beyondTotal(let total): "The upload has more bytes than its total of \(total)."
            case .notCancellable: "The upload is already final and cannot be cancelled."
            }
        }
    }

    /// The upload id.
    let id: String
    /// The object's bucket and name.
    let bucket: String, name: String
    /// The metadata sent at the start.
    let metadata: JSONValue
    /// Who started the upload, read once from the start request.
    let credential: Credential
    /// The total size announced at the start, if any.
    let declaredSize: Int64?
    /// The status.
    private(set) var status = Status.active
    /// How many bytes are kept.
    private(set) var received: Int64 = 0
    /// The HTTP status the finalize answered, for a repeated finalize.
    private(set) var finalStatus: Int?

    /// Starts an upload of object `name` in `bucket` with `metadata` (a JSON object; anything else is taken
    /// as none), whose `contentType` defaults to `contentType` (the protocol's header for it), as `credential`,
    /// of `declaredSize` bytes if the start said.
    init(
        id: String, bucket: String, name: String, metadata: JSONValue, contentType: String?, credential: Credential,
        declaredSize: Int64?
    ) {
        var members = metadata.objectValue ?? [:]
        if members["contentType"] == nil, let contentType { members["contentType"] = .string(contentType) }
        self.id = id
        self.bucket = bucket
        self.name = name
        self.metadata = .object(members)
        self.credential = credential
        self.declaredSize = declaredSize
    }

    /// A query: the bytes kept and the status (in every status).
    var progress: Progress { Progress(received: received, status: status) }

    /// A chunk of `length` bytes (when known) starting at `offset` (the bytes the client believes were
    /// received; `nil` when it does not say): how to append it. A retried chunk overlaps what was kept and is
    /// skipped that far; a chunk after a gap, or past the declared size, is refused.
    func receive(chunkAt offset: Int64?, length: Int64?) throws(Refusal) -> Append {
        try checkActive()
        let start = offset ?? received
        guard start >= 0, start <= received else { throw .gap(expected: received, got: start) }
        let skip = received - start
        if let declaredSize, let length, length >= skip, received + (length - skip) > declaredSize {
            throw .beyondDeclaredSize(declaredSize)
        }
        return Append(skip: skip, limit: declaredSize)
    }

    /// `count` more bytes were appended.
    mutating func appended(_ count: Int64) {
        received += count
    }

    /// The end of a request (after its bytes, if it had any): the upload goes on, or is final and its object
    /// is to be written from the bytes kept.
    mutating func complete(_ completion: Completion) throws(Refusal) -> Outcome {
        try checkActive()
        switch completion {
        case .later:
            return .progress(progress)
        case .atTotal(let total) where received < total:
            return .progress(progress)
        case .atTotal(let total) where received > total:
            throw .beyondTotal(total)
        case .now, .atTotal:
            status = .final
            return .finalize(Finalization(bucket: bucket, name: name, metadata: metadata, credential: credential))
        }
    }

    /// Records the HTTP status the finalize answered (a repeated finalize answers it again).
    mutating func answered(_ httpStatus: Int) {
        finalStatus = httpStatus
    }

    /// Cancels: the bytes kept are to be dropped, no object is written. Cancelling again is no error.
    mutating func cancel() throws(Refusal) {
        guard status != .final else { throw .notCancellable }
        status = .cancelled
    }

    /// Refuses every event but a query and a cancel once the upload is no longer active.
    private func checkActive() throws(Refusal) {
        switch status {
        case .active: return
        case .cancelled: throw .notActive
        case .final: throw .alreadyFinal(previous: finalStatus ?? 200)
        }
    }
}
