import FirestoreWire
@testable import HearthTesting
import SwiftProtobuf
import Testing

/// The parts of `FirestoreClient` that run without I/O: the write encoding, the listen state machine and the
/// loop that feeds it.
extension FirestoreClientTests {
    @Test func writesAreEncodedAsTheSDKsSendThem() throws {
        let root = "projects/p/databases/(default)/documents"
        let merge = try WriteData(
            setting: ["a": ["b": 1, "at": .serverTimestamp, "gone": .delete], "odd-key": [:], "n": .increment(1)],
            merge: true, root: root
        ).write(to: root + "/c/d")
        #expect(merge.update.name == root + "/c/d" && !merge.hasCurrentDocument)
        #expect(merge.updateMask.fieldPaths == ["`odd-key`", "a.b", "a.gone"])
        #expect(merge.updateTransforms.map(\.fieldPath) == ["a.at", "n"])
        #expect(merge.update.fields["a"]?.mapValue.fields.keys.sorted() == ["b"])

        let update = try WriteData(
            updating: ["x.y": 1, "gone": .delete, "at": .serverTimestamp, "ref": .reference("u/a")], root: root
        ).write(to: root + "/c/d", exists: true)
        #expect(update.updateMask.fieldPaths == ["gone", "ref", "x.y"] && update.currentDocument.exists)
        #expect(update.update.fields["x"]?.mapValue.fields["y"]?.integerValue == 1)
        #expect(update.update.fields["ref"]?.referenceValue == root + "/u/a")
        #expect(update.updateTransforms.map(\.fieldPath) == ["at"])

        let set = try WriteData(setting: ["m": ["at": .serverTimestamp]], merge: false, root: root).write(to: root + "/c/d")
        #expect(!set.hasUpdateMask && set.update.fields["m"]?.mapValue.fields.isEmpty == true)
        #expect(throws: ClientError.self) { try WriteData(updating: ["m": ["x": .delete]], root: root) }
        #expect(throws: ClientError.self) { try WriteData(setting: ["a": [.serverTimestamp]], merge: false, root: root) }
    }

    @Test func onlyANewVersionMakesADocumentModified() {
        let root = "projects/p/databases/(default)/documents"
        var state = ListenState(root: root) { $0.path < $1.path }
        typealias Response = Google_Firestore_V1_ListenResponse
        // NaN is not equal to itself: the data of each copy differs from the last.
        func document(version: Int64) -> Response {
            .with {
                $0.documentChange.document.name = root + "/c/nan"
                $0.documentChange.document.fields["x"] = .with { $0.doubleValue = .nan }
                $0.documentChange.document.updateTime.seconds = version
                $0.documentChange.targetIds = [ListenState.targetID]
            }
        }
        let current = Response.with { $0.targetChange.targetChangeType = .current; $0.targetChange.targetIds = [1] }
        let global = Response.with { $0.targetChange.readTime.seconds = 7 }
        #expect(state.receive(document(version: 1)) == .wait)
        #expect(state.receive(current) == .wait)
        guard case .emit(let first) = state.receive(global) else { Issue.record("no first snapshot"); return }
        #expect(first.documentChanges.map(\.kind) == [.added])
        // The same version again, as after a RESET: no change.
        #expect(state.receive(document(version: 1)) == .wait)
        #expect(state.receive(global) == .wait)
        #expect(state.receive(document(version: 2)) == .wait)
        guard case .emit(let second) = state.receive(global) else { Issue.record("no second snapshot"); return }
        #expect(second.documentChanges.map(\.kind) == [.modified])
    }

    @Test func aListenThatEndsWithoutRemovingItsTargetIsUnavailable() async throws {
        let root = "projects/p/databases/(default)/documents"
        typealias Response = Google_Firestore_V1_ListenResponse
        let current = Response.with { $0.targetChange.targetChangeType = .current; $0.targetChange.targetIds = [1] }
        let global = Response.with { $0.targetChange.readTime.seconds = 7 }
        let removed = Response.with { $0.targetChange.targetChangeType = .remove; $0.targetChange.targetIds = [1] }
        /// Follows `responses`, then the end of the stream; returns how many snapshots were delivered.
        func follow(_ responses: [Response]) async throws -> Int {
            let (stream, continuation) = AsyncThrowingStream.makeStream(of: Response.self)
            for response in responses { continuation.yield(response) }
            continuation.finish()
            var delivered = 0
            try await FirestoreClient.follow(stream, with: ListenState(root: root) { $0.path < $1.path }) { _ in
                delivered += 1
            }
            return delivered
        }
        let ended = await #expect(throws: ClientError.self) { try await follow([current, global]) }
        #expect(ended?.code == .unavailable)
        #expect(try await follow([current, global, removed]) == 1)
    }

    @Test func theListenStateFollowsTheWatchProtocol() {
        let root = "projects/p/databases/(default)/documents"
        var state = ListenState(root: root) { $0.path < $1.path }
        typealias Response = Google_Firestore_V1_ListenResponse
        func document(_ id: String, targets: [Int32] = [ListenState.targetID]) -> Response {
            .with { $0.documentChange.document.name = root + "/c/" + id; $0.documentChange.targetIds = targets }
        }
        func target(_ kind: Google_Firestore_V1_TargetChange.TargetChangeType, _ ids: [Int32] = [1]) -> Response {
            .with { $0.targetChange.targetChangeType = kind; $0.targetChange.targetIds = ids }
        }
        let global = Response.with { $0.targetChange.readTime.seconds = 7 }

        #expect(state.receive(target(.add)) == .wait)
        #expect(state.receive(document("a")) == .wait)
        #expect(state.receive(document("x", targets: [9])) == .wait)
        // No snapshot before the target is CURRENT.
        #expect(state.receive(global) == .wait)
        #expect(state.receive(target(.current)) == .wait)
        guard case .emit(let first) = state.receive(global) else { Issue.record("no first snapshot"); return }
        #expect(first.documents.map(\.id) == ["a"] && first.readTime == Timestamp(seconds: 7, nanoseconds: 0))
        // Nothing changed: no snapshot.
        #expect(state.receive(global) == .wait)
        #expect(state.receive(document("b")) == .wait)
        let deleted = Response.with { $0.documentDelete.document = root + "/c/a"; $0.documentDelete.removedTargetIds = [1] }
        #expect(state.receive(deleted) == .wait)
        guard case .emit(let second) = state.receive(global) else { Issue.record("no second snapshot"); return }
        #expect(second.documentChanges.map(\.kind) == [.removed, .added] && second.documents.map(\.id) == ["b"])
        // RESET drops the documents until the server sends them again.
        #expect(state.receive(target(.reset)) == .wait)
        #expect(state.receive(global) == .wait)
        #expect(state.receive(target(.remove, [9])) == .wait)
        var denied = target(.remove)
        denied.targetChange.cause = .with { $0.code = 7; $0.message = "Missing or insufficient permissions." }
        let refusal = ClientError(.permissionDenied, status: 7, message: denied.targetChange.cause.message)
        #expect(state.receive(denied) == .fail(refusal))
        #expect(state.receive(target(.remove)) == .finish)
    }
}
