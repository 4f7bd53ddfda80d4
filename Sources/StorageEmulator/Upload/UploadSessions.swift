import EmulatorCore
import Foundation
import Synchronization

/// The resumable uploads in progress: each one's state and the blob its bytes go to (a file, open only while
/// a request writes to it, so abandoned uploads hold no descriptor). A request works on one upload at a
/// time (a second request for an upload already busy waits for nothing: it is refused).
final class UploadSessions: Sendable {
    /// An upload and its bytes so far.
    struct Session: @unchecked Sendable {
        // `writer` is only touched by the one request that has the session checked out.
        var upload: ResumableUpload
        var writer: BlobWriter?
        var busy = false
    }

    private let sessions = Mutex<[String: Session]>([:])

    /// Starts `upload` with `writer` for its bytes.
    func start(_ upload: ResumableUpload, writer: BlobWriter) {
        writer.park()
        sessions.withLock { $0[upload.id] = Session(upload: upload, writer: writer) }
    }

    /// Runs `body` with upload `id` checked out (`nil` if there is no such upload, or it is busy with
    /// another request: `busy` is then true). Changes `body` makes to the session are kept.
    func withSession<Result>(_ id: String, _ body: (inout Session) async throws -> Result) async rethrows -> Result? {
        let checkedOut = sessions.withLock { sessions -> Session? in
            guard var session = sessions[id], !session.busy else { return nil }
            session.busy = true
            sessions[id]?.busy = true
            return session
        }
        guard var session = checkedOut else { return nil }
        defer {
            session.busy = false
            session.writer?.park()  // an upload between chunks holds no descriptor
            let returned = session
            sessions.withLock { $0[id] = returned }
        }
        return try await body(&session)
    }

    /// Whether upload `id` exists.
    func contains(_ id: String) -> Bool {
        sessions.withLock { $0[id] != nil }
    }

    /// Drops every upload (their blobs are discarded).
    func reset() {
        let writers = sessions.withLock { sessions in
            defer { sessions = [:] }
            return sessions.values.compactMap(\.writer)
        }
        for writer in writers { writer.discard() }
    }
}
