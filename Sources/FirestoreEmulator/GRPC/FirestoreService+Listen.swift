import EmulatorCore
import FirestoreWire
import Foundation
import GRPCCore
import SwiftProtobuf
import Synchronization

/// `Listen`: snapshot listeners. Targets come from the client, commits from the store's feed; one loop
/// feeds both, in arrival order, to a `ListenSession` and writes back what it returns. The loop does not
/// know its transport: gRPC streams and the web SDK's WebChannel sessions both run it.
extension FirestoreService {
    /// One input of the listen loop.
    private enum ListenInput: Sendable {
        case request(Google_Firestore_V1_ListenRequest)
        case commit(CommitFeed.Entry)
        /// Every commit published before the oldest held snapshot's target was read has been fed in.
        case caughtUp
    }

    /// `Listen`: answers each `add_target` with ADD, the documents, CURRENT and a snapshot, each
    /// `remove_target` with REMOVE, and every later commit with the changes and a snapshot.
    func listen(
        request: StreamingServerRequest<Google_Firestore_V1_ListenRequest>, context: ServerContext
    ) async throws -> StreamingServerResponse<Google_Firestore_V1_ListenResponse> {
        let credential = callContext(request.metadata).credential
        return StreamingServerResponse { response in
            try await serveListen(request.messages, credential: credential) { try await response.write(contentsOf: $0) }
            return [:]
        }
    }

    /// Serves one listen stream: `requests` are the client's, `send` writes a batch of responses (one
    /// commit's changes and its snapshot go in one batch). Returns when the client ends its requests;
    /// throws the `RPCError` that ends the stream otherwise.
    func serveListen(
        _ requests: some AsyncSequence<Google_Firestore_V1_ListenRequest, any Error> & Sendable, credential: Credential,
        send: ([Google_Firestore_V1_ListenResponse]) async throws -> Void
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
                    let waiting = session.waitingForCatchUp
                    events = handle(message, session: &session, database: listening!.database, credential: credential)
                    if session.waitingForCatchUp > waiting {
                        // The feed hands this out after every commit published so far, in order.
                        api.store.feed.afterPublished {
                            // A stream too far behind to hold it is ended (RESOURCE_EXHAUSTED, below).
                            if case .dropped = continuation.yield(.caughtUp) {
                                behind.set()
                                continuation.finish()
                            }
                        }
                    }
                case .commit(let entry):
                    guard let database = listening?.database else { continue }
                    do throws(APIError) {
                        events = try session.apply(entry.changes, at: entry.commitTime, in: database) {
                            (target) throws(APIError) in try rerun(target, database: database, at: entry.commitTime)
                        }
                    } catch {
                        throw RPCError(error)
                    }
                case .caughtUp:
                    events = session.caughtUp()
                }
                guard let database = listening?.database, !events.isEmpty else { continue }
                // One write per batch of events: a commit's changes and its snapshot go out together.
                try await send(events.map { Self.message(for: $0, in: database) })
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
                let previous = resumeTime(of: target).flatMap { try? rerun(target, database: database, at: $0) }
                let (results, readTime, deleted) = try initialResults(
                    of: target, database: database, credential: credential, previous: previous ?? [])
                return session.add(
                    target, results: results, readTime: readTime, in: database,
                    resumed: previous.map { ListenSession.Resumed(previous: $0, deleted: deleted) }, holdingSnapshot: true)
            } catch {
                return session.refuse(target.id, because: error)
            }
        case nil:
            return []
        }
    }

    /// The target's documents now, decided by the rules, the time they were read at, and which of the
    /// `previous` documents no longer exist.
    private func initialResults(
        of target: ListenTarget, database: DatabaseName, credential: Credential, previous: [Document]
    ) throws(APIError) -> ([Document], Timestamp, deleted: Set<DocumentPath>) {
        let now = api.callContext(authorization: nil).now
        let ((documents, deleted), stamp) = try api.store.read(database) {
            (view: inout DatabaseView) throws(APIError) -> ([Document], Set<DocumentPath>) in
            let documents: [Document]
            switch target.kind {
            case .query(let query):
                try api.rules.authorizeQuery(query, credential: credential, view: view, time: now)
                documents = view.run(query)
            case .documents(let paths):
                for path in paths { try api.rules.authorizeGet(path, credential: credential, view: view, time: now) }
                documents = paths.compactMap { view.document(at: $0) }
            }
            return (documents, Set(previous.map(\.path).filter { view.document(at: $0) == nil }))
        }
        return (documents, stamp.readTime, deleted)
    }

    /// When a resumed target's client was last up to date (its resume token's or read time's time), if
    /// that is in the past.
    private func resumeTime(of target: ListenTarget) -> Timestamp? {
        let time: Timestamp?
        switch target.resume {
        case .none: time = nil
        case .token(let token): time = Timestamp(resumeToken: token)
        case .readTime(let readTime): time = readTime
        }
        return time.flatMap { $0 <= Timestamp(api.clock.now()) ? $0 : nil }
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
        case .existenceFilter(let targetID, let count):
            var filter = Google_Firestore_V1_ExistenceFilter()
            filter.targetID = targetID
            filter.count = count
            message.filter = filter
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
