import EmulatorCore
import Testing

@testable import FirestoreEmulator

/// A commit's written documents are found the same way whether compared or hashed, and a commit that writes
/// some documents many times, across the point where they start being hashed, leaves each as its writes in
/// order make it and reports each change once.
@Suite struct PendingDocumentsTests {
    typealias F = WriteFixture

    static func path(_ number: Int) -> DocumentPath {
        // Some share a document id in different collections, some a collection.
        DocumentPath(segments: ["rooms", "r\(number % 7)", "messages", "m\(number / 7)"])
    }

    @Test(arguments: [1, 2, 3]) func positionsAgreeWithADictionary(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var pending = PendingDocuments()
        var model: [DocumentPath: Int] = [:]
        for _ in 0..<400 {
            let path = Self.path(Int.random(in: 0..<60, using: &random))
            #expect(pending.position(of: path) == model[path])
            if model[path] == nil {
                let stored = F.document(["n": .integer(Int64(model.count))])
                model[path] = pending.add(path, stored: stored)
                #expect(pending.before[model[path]!] == stored)
            }
            pending.set(nil, at: model[path]!)
            #expect(pending[path] == .some(nil))
        }
        #expect(pending.count == model.count)
        #expect(pending.count > PendingDocuments.comparedAtMost)
        #expect(pending[Self.path(10_000)] == nil)
    }

    @Test(arguments: [4, 17, 40]) func aCommitWritingDocumentsManyTimesLeavesEachAsItsWritesMakeIt(writes count: Int) throws {
        let store = try FirestoreStore(clock: SystemClock())
        let stored = (0..<5).map { Self.path($0) }
        _ = try store.commit(F.database, writes: stored.map { Write(path: $0, operation: .update(fields: ["n": .integer(100)])) }) {
            _, _, _ throws(FirestoreError) in
        }
        var random = SplitMix64(seed: UInt64(count))
        let paths = (0..<count).map { _ in Self.path(Int.random(in: 0..<(count / 2 + 1), using: &random)) }
        let writes = paths.map { path in
            Write(path: path, operation: .transform, transforms: [FieldTransform(field: FieldPath(segments: ["n"]), kind: .increment(.integer(1)))])
        }
        var seen: [DocumentPath?] = []
        let outcome = try store.commit(F.database, writes: writes) { pending, view, _ throws(FirestoreError) in
            seen = pending.map { view.peek(at: $0.write.path)?.path }
        }
        var expected: [DocumentPath: Int64] = [:]
        for path in stored { expected[path] = 100 }
        for path in paths { expected[path, default: 0] += 1 }
        var order: [DocumentPath] = []
        for path in paths where !order.contains(path) { order.append(path) }
        #expect(outcome.changes.map(\.path) == order)
        for change in outcome.changes {
            #expect(change.before?.fields["n"] == (stored.contains(change.path) ? .integer(100) : nil))
            #expect(change.after?.fields["n"] == .integer(expected[change.path]!))
        }
        #expect(seen == paths)
        let (documents, _) = try store.read(F.database) { view throws(FirestoreError) in order.map { view.peek(at: $0) } }
        #expect(documents.map { $0?.fields["n"] } == order.map { .integer(expected[$0]!) })
        #expect(outcome.results.count == count)
    }
}
