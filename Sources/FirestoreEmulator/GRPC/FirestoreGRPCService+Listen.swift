import EmulatorCore
import FirestoreWire
import Foundation
import GRPCCore
import SwiftProtobuf

/// `Listen`: snapshot listeners over gRPC through grpc-swift (the event-loop path is `ListenCall`). Each
/// request becomes the service's `ListenRequest` and each event of the service's listen loop a
/// `ListenResponse`; WebChannel reads and writes the same messages as proto3 JSON.
extension FirestoreGRPCService {
    /// `Listen`: answers each `add_target` with ADD, the documents, CURRENT and a snapshot, each
    /// `remove_target` with REMOVE, and every later commit with the changes and a snapshot.
    func listen(
        request: StreamingServerRequest<Google_Firestore_V1_ListenRequest>, context: ServerContext
    ) async throws -> StreamingServerResponse<Google_Firestore_V1_ListenResponse> {
        let credential = self.context(request.metadata).credential
        return StreamingServerResponse { response in
            try await serveListen(request.messages, credential: credential) { try await response.write(contentsOf: $0) }
            return [:]
        }
    }

    /// Serves one listen stream of `requests` messages: `send` writes a batch of responses (one commit's
    /// changes and its snapshot go in one batch). Throws the `RPCError` that ends the stream.
    func serveListen(
        _ requests: some AsyncSequence<Google_Firestore_V1_ListenRequest, any Error> & Sendable, credential: Credential,
        send: ([Google_Firestore_V1_ListenResponse]) async throws -> Void
    ) async throws {
        do {
            try await service.serveListen(requests.map(Self.request), credential: credential) { events, database in
                try await send(events.map { Self.message(for: $0, in: database) })
            }
        } catch let error as FirestoreError {
            throw RPCError(error)
        }
    }

    /// The service's form of a `ListenRequest`.
    @Sendable static func request(_ message: Google_Firestore_V1_ListenRequest) -> ListenRequest {
        var request = ListenRequest(database: message.database)
        switch message.targetChange {
        case .removeTarget(let id):
            request.change = .remove(id)
        case .addTarget(let proto):
            request.change = .add(targetID: proto.targetID) { (database) throws(FirestoreError) in
                try target(proto, in: database)
            }
        case nil:
            break
        }
        return request
    }

    /// Decodes a `Target`.
    private static func target(_ proto: Google_Firestore_V1_Target, in database: DatabaseName) throws(FirestoreError)
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
            guard named == database else { throw FirestoreError.otherDatabase(query.parent, database) }
            return ListenTarget(
                id: proto.targetID, kind: .query(try StructuredQuery(proto: query.structuredQuery, parent: parent)),
                resume: resume,
                once: proto.once)
        case .documents(let documents):
            var paths: [DocumentPath] = []
            for name in documents.documents {
                let (named, path) = try DocumentPath.parse(documentName: name)
                guard named == database else { throw FirestoreError.otherDatabase(name, database) }
                paths.append(path)
            }
            return ListenTarget(id: proto.targetID, kind: .documents(paths), resume: resume, once: proto.once)
        case nil:
            throw FirestoreError(.invalidArgument, "A target must set query or documents.")
        }
    }

    /// The `ListenResponse` of an event.
    static func message(for event: ListenEvent, in database: DatabaseName) -> Google_Firestore_V1_ListenResponse {
        var message = Google_Firestore_V1_ListenResponse()
        switch event {
        case .targetChange(let kind, let ids, let cause, let resumeTime, let readTime):
            var change = Google_Firestore_V1_TargetChange()
            change.targetChangeType = Google_Firestore_V1_TargetChange.TargetChangeType(rawValue: kind.rawValue) ?? .noChange
            change.targetIds = ids
            if let cause {
                var status = Google_Rpc_Status()
                status.code = Int32(cause.grpcCode)
                status.message = cause.message
                change.cause = status
            }
            if let resumeTime { change.resumeToken = Data(resumeTime.resumeToken) }
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
