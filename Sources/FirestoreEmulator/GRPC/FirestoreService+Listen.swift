import EmulatorCore
import FirestoreWire
import Foundation
import GRPCCore
import SwiftProtobuf
import Synchronization

/// `Listen`: snapshot listeners. Targets come from the client, commits from the store's feed; one loop
/// feeds both, in arrival order, to a `ListenSession` and writes back what it returns.
extension FirestoreService {
    /// One input of the listen loop.
    private enum ListenInput: Sendable {
        case request(Google_Firestore_V1_ListenRequest)
        case commit(CommitFeed.Entry)
    }

    /// `Listen`: answers each `add_target` with ADD, the documents, CURRENT and a snapshot, each
    /// `remove_target` with REMOVE, and every later commit with the changes and a snapshot.
    func listen(
        request: StreamingServerRequest<Google_Firestore_V1_ListenRequest>, context: ServerContext
    ) async throws -> StreamingServerResponse<Google_Firestore_V1_ListenResponse> {
        let credential = callContext(request.metadata).credential
        return StreamingServerResponse { response in
            try await serve(request.messages, to: response, credential: credential)
            return [:]
        }
    }

    private func serve(
        _ requests: RPCAsyncSequence<Google_Firestore_V1_ListenRequest, any Error>,
        to response: RPCWriter<Google_Firestore_V1_ListenResponse>, credential: Credential
    ) async throws {
        // Requests and commits arrive in one stream; commits are yielded into it by the store's feed directly.
        let (inputs, continuation) = AsyncStream<ListenInput>.makeStream(bufferingPolicy: .bufferingOldest(api.store.feed.limit))
        var listening: (database: DatabaseName, subscription: Int)?
        let behind = Flag()
        defer { if let listening { api.store.feed.unsubscribe(listening.subscription, from: listening.database) } }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    for try await message in requests {
                        // A request the stream cannot hold means the stream is 10,000 messages behind.
                        if case .dropped = continuation.yield(.request(message)) { behind.set() }
                    }
                } catch {
                    // The client went away: the stream ends.
                }
                continuation.finish()
            }
            var session = ListenSession()
            for await input in inputs {
                var events: [ListenEvent] = []
                switch input {
                case .request(let message):
                    if listening == nil {
                        // Subscribed before any target is read: no commit falls between a target's results
                        // and its updates.
                        do throws(APIError) {
                            let database = try DatabaseName(validating: message.database)
                            let (_, subscription, _) = try api.store.listen(
                                database, subscribe: { $0.subscribe(database, into: continuation) { .commit($0) } }
                            ) { (_: inout DatabaseView) throws(APIError) in () }
                            listening = (database, subscription)
                        } catch {
                            throw RPCError(error)
                        }
                    }
                    events = handle(message, session: &session, database: listening!.database, credential: credential)
                case .commit(let entry):
                    guard let database = listening?.database else { continue }
                    do throws(APIError) {
                        events = try session.apply(entry.changes, at: entry.commitTime, in: database) {
                            (target) throws(APIError) in try rerun(target, database: database, at: entry.commitTime)
                        }
                    } catch {
                        throw RPCError(error)
                    }
                }
                guard let database = listening?.database, !events.isEmpty else { continue }
                // One write per batch of events: a commit's changes and its snapshot go out together.
                try await response.write(contentsOf: events.map { Self.message(for: $0, in: database) })
            }
            group.cancelAll()
            if behind.isSet || listening.map({ api.store.feed.takeOverflow(of: $0.subscription) }) == true {
                throw RPCError(
                    code: .resourceExhausted, message: "The listener fell too far behind the writes; reconnect to resume.")
            }
        }
    }

    /// Adds or removes a target.
    private func handle(
        _ message: Google_Firestore_V1_ListenRequest, session: inout ListenSession, database: DatabaseName,
        credential: Credential
    ) -> [ListenEvent] {
        switch message.targetChange {
        case .removeTarget(let id):
            return session.remove(id)
        case .addTarget(let proto):
            let target: ListenTarget
            do {
                target = try Self.target(proto, in: database)
            } catch {
                return session.refuse(proto.targetID, because: error)
            }
            do {
                let (results, readTime) = try initialResults(of: target, database: database, credential: credential)
                return session.add(target, results: results, readTime: readTime, in: database)
            } catch {
                return session.refuse(target.id, because: error)
            }
        case nil:
            return []
        }
    }

    /// The target's documents now, decided by the rules, and the time they were read at.
    private func initialResults(of target: ListenTarget, database: DatabaseName, credential: Credential) throws(APIError)
        -> ([Document], Timestamp)
    {
        let now = api.callContext(authorization: nil).now
        let (documents, stamp) = try api.store.read(database) { (view: inout DatabaseView) throws(APIError) -> [Document] in
            switch target.kind {
            case .query(let query):
                try api.rules.authorizeQuery(query, credential: credential, view: view, time: now)
                return view.run(query)
            case .documents(let paths):
                for path in paths { try api.rules.authorizeGet(path, credential: credential, view: view, time: now) }
                return paths.compactMap { view.document(at: $0) }
            }
        }
        return (documents, stamp.readTime)
    }

    /// A target's results as of `time`, for targets whose membership depends on other documents.
    private func rerun(_ target: ListenTarget, database: DatabaseName, at time: Timestamp) throws(APIError) -> [Document] {
        let (documents, _) = try api.store.read(database, consistency: .readTime(time)) {
            (view: inout DatabaseView) throws(APIError) -> [Document] in
            switch target.kind {
            case .query(let query): return view.run(query)
            case .documents(let paths): return paths.compactMap { view.document(at: $0) }
            }
        }
        return documents
    }

    /// Decodes `Target` (through its proto3 JSON, with the REST decoders).
    private static func target(_ proto: Google_Firestore_V1_Target, in database: DatabaseName) throws(APIError)
        -> ListenTarget
    {
        var resume = ListenTarget.Resume.none
        switch proto.resumeType {
        case .resumeToken(let token): resume = .token(Array(token))
        case .readTime(let time): resume = .readTime(Timestamp(seconds: time.seconds, nanos: time.nanos))
        case nil: break
        }
        switch proto.targetType {
        case .query(let query):
            let (named, parent) = try DocumentPath.parse(resourceName: query.parent)
            guard named == database else { throw FirestoreAPI.otherDatabase(query.parent, database) }
            // The REST decoder reads the query, through its proto3 JSON (the bridge every RPC uses).
            guard let json = try? body(of: query.structuredQuery) else {
                throw .firestore(.invalidArgument, "The target's structured_query could not be read.")
            }
            return ListenTarget(
                id: proto.targetID, kind: .query(try StructuredQuery(json: json, parent: parent)), resume: resume,
                once: proto.once)
        case .documents(let documents):
            var paths: [DocumentPath] = []
            for name in documents.documents {
                let (named, path) = try DocumentPath.parse(documentName: name)
                guard named == database else { throw FirestoreAPI.otherDatabase(name, database) }
                paths.append(path)
            }
            return ListenTarget(id: proto.targetID, kind: .documents(paths), resume: resume, once: proto.once)
        case nil:
            throw .firestore(.invalidArgument, "A target must set query or documents.")
        }
    }

    /// The `ListenResponse` of an event.
    private static func message(for event: ListenEvent, in database: DatabaseName) -> Google_Firestore_V1_ListenResponse {
        var message = Google_Firestore_V1_ListenResponse()
        switch event {
        case .targetChange(let kind, let ids, let cause, let token, let readTime):
            var change = Google_Firestore_V1_TargetChange()
            change.targetChangeType = Google_Firestore_V1_TargetChange.TargetChangeType(rawValue: kind.rawValue) ?? .noChange
            change.targetIds = ids
            if let cause {
                var status = Google_Rpc_Status()
                status.code = Int32(GoogleStatus(rawValue: cause.status ?? "")?.grpcCode ?? 2)
                status.message = cause.message
                change.cause = status
            }
            if let token { change.resumeToken = Data(token) }
            if let readTime { change.readTime = readTime.proto }
            message.targetChange = change
        case .documentChange(let document, let ids, let removed):
            var change = Google_Firestore_V1_DocumentChange()
            change.document = document.proto(in: database)
            change.targetIds = ids
            change.removedTargetIds = removed
            message.documentChange = change
        case .documentDelete(let path, let removed, let readTime):
            var delete = Google_Firestore_V1_DocumentDelete()
            delete.document = path.name(in: database)
            delete.removedTargetIds = removed
            delete.readTime = readTime.proto
            message.documentDelete = delete
        case .documentRemove(let path, let removed, let readTime):
            var remove = Google_Firestore_V1_DocumentRemove()
            remove.document = path.name(in: database)
            remove.removedTargetIds = removed
            remove.readTime = readTime.proto
            message.documentRemove = remove
        }
        return message
    }
}

/// A flag set once from any task.
private final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    /// Sets the flag.
    func set() { value.store(true, ordering: .relaxed) }
    /// Whether it was set.
    var isSet: Bool { value.load(ordering: .relaxed) }
}
