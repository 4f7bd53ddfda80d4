import EmulatorCore
import Hummingbird

/// The I/O of resumable uploads, shared by the Firebase v0 and GCS JSON APIs: each translates its requests
/// into `ResumableUpload`'s events and its outcomes into its answers; what the state machine asks for (a blob
/// for the bytes, a chunk appended, the bytes dropped, the blob handed to the object's write) is done here.
extension StorageAPI {
    /// Starts a resumable upload (see `ResumableUpload.init`) with a new blob for its bytes; returns its id.
    func startResumable(
        _ bucket: String, _ name: String, metadata: JSONValue, contentType: String?, credential: Credential,
        declaredSize: Int64?
    ) throws -> String {
        let id = RandomID.make(length: 32, from: RandomID.base64URL)
        let upload = ResumableUpload(
            id: id, bucket: bucket, name: name, metadata: metadata, contentType: contentType, credential: credential,
            declaredSize: declaredSize)
        uploads.start(upload, writer: try store.newBlob())
        return id
    }

    /// Appends the body of `request`, a chunk starting at `offset` (the client's count of bytes received;
    /// `nil`: where they end), to the upload checked out in `session` as its state machine says, then ends the
    /// request with `completion`. The upload stays within the maximum upload size too (413).
    func append(
        _ request: Request, at offset: Int64?, to session: inout UploadSessions.Session,
        then completion: ResumableUpload.Completion
    ) async throws -> ResumableUpload.Outcome {
        let append = try session.upload.receive(
            chunkAt: offset, length: request.headers[.contentLength].flatMap { Int64($0) })
        guard let writer = session.writer else { throw ResumableUpload.Refusal.notActive }
        let before = writer.size
        do {
            try await UploadBody.write(
                request.body, to: writer, skip: append.skip, limit: min(maxUploadSize, append.limit ?? .max))
        } catch {
            // What was written before the failure is kept and counted, so a retry from the offset the
            // client is told continues after it instead of writing it twice.
            session.upload.appended(writer.size - before)
            if let error = error as? UploadError { throw Self.wireError(error) }
            throw error
        }
        session.upload.appended(writer.size - before)
        return try session.upload.complete(completion)
    }

    /// Cancels the upload checked out in `session` and drops its bytes.
    func cancel(_ session: inout UploadSessions.Session) throws(ResumableUpload.Refusal) {
        try session.upload.cancel()
        session.writer?.discard()
        session.writer = nil
    }

    /// Writes the object of the upload checked out in `session`, just finalized, with `write` (given the
    /// writer holding its bytes: each API writes objects its own way); the status it answers, 200 or an
    /// `APIError`'s, is recorded for a repeated finalize.
    func finalize<Object>(
        _ session: inout UploadSessions.Session, with write: (BlobWriter) async throws -> Object
    ) async throws -> Object {
        guard let writer = session.writer else { throw ResumableUpload.Refusal.notActive }
        session.writer = nil
        do {
            let object = try await write(writer)
            session.upload.answered(200)
            return object
        } catch let error as APIError {
            session.upload.answered(error.code)
            throw error
        }
    }
}
