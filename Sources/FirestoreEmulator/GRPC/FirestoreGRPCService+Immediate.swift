import FirestoreWire
import GRPCCore
import NIOCore
import NIOHPACK
import SwiftProtobuf

/// Every RPC but `Listen` and `Write` runs under the store's lock and returns, so each is answered on the
/// connection's event loop (`GRPCConnectionHandler`), with the same methods grpc-swift's wrappers call.
/// `Listen` and `Write` are served there too, as streams (`ListenCall`, `WriteCall`).
extension FirestoreGRPCService: ImmediateGRPCResponder {
    private typealias Method = Google_Firestore_V1_Firestore.Method
    private typealias Answerer = @Sendable (FirestoreGRPCService, ByteBuffer, HPACKHeaders) -> ImmediateGRPCAnswer

    /// The immediate RPCs by path.
    private static let answerers: [String: Answerer] = [
        path(Method.GetDocument.descriptor): { $0.answerSerialized($1, $2, $0.getDocumentBytes(_:_:)) },
        path(Method.ListDocuments.descriptor): { $0.answer($1, $2, $0.listDocuments(_:_:)) },
        path(Method.CreateDocument.descriptor): { $0.answer($1, $2, $0.createDocument(_:_:)) },
        path(Method.UpdateDocument.descriptor): { $0.answer($1, $2, $0.updateDocument(_:_:)) },
        path(Method.DeleteDocument.descriptor): { $0.answer($1, $2, $0.deleteDocument(_:_:)) },
        path(Method.BatchGetDocuments.descriptor): { $0.answerAll($1, $2, $0.batchGetDocuments(_:_:)) },
        path(Method.BeginTransaction.descriptor): { $0.answer($1, $2, $0.beginTransaction(_:_:)) },
        path(Method.Commit.descriptor): { $0.answerCommit($1, $2) },
        path(Method.Rollback.descriptor): { $0.answer($1, $2, $0.rollback(_:_:)) },
        path(Method.BatchWrite.descriptor): { $0.answer($1, $2, $0.batchWrite(_:_:)) },
        path(Method.RunQuery.descriptor): { $0.answerSerialized($1, $2, $0.runQueryBytes(_:_:)) },
        path(Method.RunAggregationQuery.descriptor): { $0.answerAll($1, $2, $0.runAggregationQuery(_:_:)) },
        path(Method.PartitionQuery.descriptor): { $0.answer($1, $2, $0.partitionQuery(_:_:)) },
        path(Method.ListCollectionIds.descriptor): { $0.answer($1, $2, $0.listCollectionIds(_:_:)) },
    ]

    private static func path(_ descriptor: GRPCCore.MethodDescriptor) -> String {
        "/" + descriptor.fullyQualifiedMethod
    }

    func immediateAnswerer(path: String) -> ImmediateGRPCAnswerer? {
        guard let answerer = Self.answerers[path] else { return nil }
        return { [self] message, headers in answerer(self, message, headers) }
    }

    /// `Listen` and `Write` calls are served on their event loop from the first request on (`ListenCall`,
    /// `WriteCall`).
    func immediateStream(path: String, headers: HPACKHeaders, output: any ImmediateGRPCStreamOutput)
        -> (any ImmediateGRPCStream)?
    {
        switch path {
        case Self.listenPath:
            let credential = service.context(authorization: headers.first(name: "authorization")).credential
            return ListenCall(service: service, credential: credential, output: output, loops: listenLoops)
        case Self.writePath:
            return WriteCall(service: self, authorization: headers.first(name: "authorization"), output: output)
        default:
            return nil
        }
    }

    private static let listenPath = path(Method.Listen.descriptor)
    private static let writePath = path(Method.Write.descriptor)

    /// A unary RPC's answer.
    private func answer<Request: Message, Response: Message>(
        _ bytes: ByteBuffer, _ headers: HPACKHeaders, _ operation: (Request, CallContext) throws(FirestoreError) -> Response
    ) -> ImmediateGRPCAnswer {
        answerAll(bytes, headers) { (request: Request, caller) throws(FirestoreError) in [try operation(request, caller)] }
    }

    /// A server-streaming RPC's answer.
    private func answerAll<Request: Message, Response: Message>(
        _ bytes: ByteBuffer, _ headers: HPACKHeaders, _ operation: (Request, CallContext) throws(FirestoreError) -> [Response]
    ) -> ImmediateGRPCAnswer {
        answering(bytes, headers) { (request: Request, caller) throws(FirestoreError) in Self.answer(try operation(request, caller)) }
    }

    /// The answer of an RPC whose responses come serialized (written byte by byte).
    private func answerSerialized<Request: Message>(
        _ bytes: ByteBuffer, _ headers: HPACKHeaders, _ operation: (Request, CallContext) throws(FirestoreError) -> [[UInt8]]
    ) -> ImmediateGRPCAnswer {
        answering(bytes, headers) { (request: Request, caller) throws(FirestoreError) in .messages(try operation(request, caller)) }
    }

    /// Commit's answer: at once, unless the commit must first wait for an older transaction
    /// (`FirestoreService.mustWait`); then later, once it has.
    private func answerCommit(_ bytes: ByteBuffer, _ headers: HPACKHeaders) -> ImmediateGRPCAnswer {
        // The common shape is read straight from the bytes; anything else the general way, for the same
        // answer or error.
        if let request = WriteWireDecoding.commitRequest(bytes) {
            do {
                return try commit(request, service.context(authorization: headers.first(name: "authorization")))
            } catch {
                return .failure(RPCError(error))
            }
        }
        return answering(bytes, headers) { (message: Google_Firestore_V1_CommitRequest, caller) throws(FirestoreError) in
            try commit(Self.commitRequest(message), caller)
        }
    }

    /// Commits `request` now, or once the older transactions it waits for are done.
    private func commit(_ request: CommitRequest, _ caller: CallContext) throws(FirestoreError) -> ImmediateGRPCAnswer {
        guard service.mustWait(request) else { return Self.answer(try service.commit(request, caller)) }
        return .later { [service] in
            do throws(FirestoreError) {
                return Self.answer(try await service.commitWaiting(request, caller))
            } catch {
                return .failure(RPCError(error))
            }
        }
    }

    /// A commit's answer.
    private static func answer(_ outcome: FirestoreStore.CommitOutcome) -> ImmediateGRPCAnswer {
        guard let bytes = try? outcome.responseBytes() else { return serializationFailure }
        return .messages([bytes])
    }

    /// The answer `operation` gives to the decoded request; a request that does not decode is refused in
    /// grpc-swift's words, and a Firestore error becomes the call's status.
    private func answering<Request: Message>(
        _ bytes: ByteBuffer, _ headers: HPACKHeaders, _ operation: (Request, CallContext) throws(FirestoreError) -> ImmediateGRPCAnswer
    ) -> ImmediateGRPCAnswer {
        let request: Request
        do {
            request = try Request(request: bytes)
        } catch {
            return .failure(error)
        }
        do {
            return try operation(request, service.context(authorization: headers.first(name: "authorization")))
        } catch {
            return .failure(RPCError(error))
        }
    }

    /// Responses, serialized.
    private static func answer(_ responses: [some Message]) -> ImmediateGRPCAnswer {
        guard let serialized = try? responses.map({ try $0.serializedBytes() as [UInt8] }) else { return serializationFailure }
        return .messages(serialized)
    }

    private static let serializationFailure = ImmediateGRPCAnswer.failure(
        RPCError(code: .internalError, message: "The response could not be serialized."))
}
