import EmulatorCore
import Testing

@testable import FirestoreEmulator

/// Shared fixtures for the write tests.
enum WriteFixture {
    static let database = DatabaseName(project: "p", database: DatabaseName.defaultDatabase)
    static let path = DocumentPath(segments: ["rooms", "a"])
    static let name = "projects/p/databases/(default)/documents/rooms/a"
    static let created = Timestamp(seconds: 1_700_000_000, nanos: 1_000)
    static let updated = Timestamp(seconds: 1_700_000_100, nanos: 2_000)
    static let commit = Timestamp(seconds: 1_700_000_200, nanos: 3_000)

    /// A stored document at `path` with `fields`.
    static func document(_ fields: [String: FirestoreValue]) -> Document {
        Document(path: path, fields: fields, createTime: created, updateTime: updated)
    }

    /// Applies `write` to `current` at `commit`.
    static func apply(_ write: Write, to current: Document?) throws(FirestoreError) -> (document: Document?, result: WriteResult) {
        try write.apply(to: current, commitTime: commit, database: database)
    }

    /// A write of `operation` to `path`.
    static func write(
        _ operation: Write.Operation, mask: [String]? = nil, transforms: [FieldTransform] = [],
        precondition: Precondition? = nil
    ) -> Write {
        Write(
            path: path, operation: operation, updateMask: mask.map { $0.map { FieldPath(parsing: $0)! } },
            transforms: transforms, precondition: precondition)
    }
}

@Suite struct WriteApplyTests {
    typealias F = WriteFixture

    @Test func existsTrueOnAMissingDocumentIsNotFound() {
        let error = #expect(throws: FirestoreError.self) {
            try F.apply(F.write(.update(fields: [:]), precondition: .exists(true)), to: nil)
        }
        #expect(error?.status.rawValue == "NOT_FOUND")
        #expect(error?.message == "No document to update: \(F.name)")
    }

    @Test func existsTrueOnAnExistingDocumentApplies() throws {
        let (document, result) = try F.apply(
            F.write(.update(fields: ["x": .integer(2)]), precondition: .exists(true)), to: F.document(["x": .integer(1)]))
        #expect(document?.fields == ["x": .integer(2)])
        #expect(result.updateTime == F.commit)
    }

    @Test func existsFalseOnAnExistingDocumentIsAlreadyExists() {
        let error = #expect(throws: FirestoreError.self) {
            try F.apply(F.write(.update(fields: [:]), precondition: .exists(false)), to: F.document([:]))
        }
        #expect(error?.status.rawValue == "ALREADY_EXISTS")
        #expect(error?.apiError.code == 409)
        #expect(error?.message == "Document already exists: \(F.name)")
    }

    @Test func existsFalseOnAMissingDocumentCreatesIt() throws {
        let (document, result) = try F.apply(
            F.write(.update(fields: ["x": .integer(1)]), precondition: .exists(false)), to: nil)
        #expect(document == Document(path: F.path, fields: ["x": .integer(1)], createTime: F.commit, updateTime: F.commit))
        #expect(result == WriteResult(updateTime: F.commit))
    }

    @Test func updateTimePreconditionMustMatchExactly() throws {
        let current = F.document(["x": .integer(1)])
        let matching = try F.apply(F.write(.update(fields: [:]), precondition: .updateTime(F.updated)), to: current)
        #expect(matching.document?.fields == [:])

        let stale = Timestamp(seconds: 1_700_000_100, nanos: 1_000)
        let error = #expect(throws: FirestoreError.self) {
            try F.apply(F.write(.update(fields: [:]), precondition: .updateTime(stale)), to: current)
        }
        #expect(error?.status.rawValue == "FAILED_PRECONDITION")
        #expect(
            error?.message
                == "the stored version (1700000100000002) does not match the required base version (1700000100000001)")

        let missing = #expect(throws: FirestoreError.self) {
            try F.apply(F.write(.delete, precondition: .updateTime(F.updated)), to: nil)
        }
        #expect(missing?.status.rawValue == "NOT_FOUND")
    }

    @Test func deleteRemovesTheDocumentWithoutAnUpdateTime() throws {
        let (document, result) = try F.apply(F.write(.delete), to: F.document(["x": .integer(1)]))
        #expect(document == nil)
        #expect(result == WriteResult(updateTime: nil))
        #expect(try F.apply(F.write(.delete), to: nil).document == nil)
        let error = #expect(throws: FirestoreError.self) { try F.apply(F.write(.delete, precondition: .exists(true)), to: nil) }
        #expect(error?.status.rawValue == "NOT_FOUND")
    }

    @Test func verifyOnlyChecksThePrecondition() throws {
        let current = F.document(["x": .integer(1)])
        let (document, result) = try F.apply(F.write(.verify, precondition: .updateTime(F.updated)), to: current)
        #expect(document == current)
        #expect(result == WriteResult(updateTime: nil))
        #expect(try F.apply(F.write(.verify, precondition: .exists(false)), to: nil).document == nil)
        #expect(throws: FirestoreError.self) {
            try F.apply(F.write(.verify, precondition: .updateTime(F.commit)), to: current)
        }
    }

    @Test func setReplacesEveryFieldAndKeepsCreateTime() throws {
        let current = F.document(["a": .integer(1), "b": .map(["c": .integer(2)])])
        let (document, result) = try F.apply(F.write(.update(fields: ["d": .string("x")])), to: current)
        #expect(document == Document(path: F.path, fields: ["d": .string("x")], createTime: F.created, updateTime: F.commit))
        #expect(result.updateTime == F.commit)
    }

    @Test func patchChangesOnlyMaskedPaths() throws {
        let current = F.document(["a": .map(["b": .integer(1), "c": .integer(2)]), "keep": .boolean(true), "gone": .null])
        let write = F.write(
            .update(fields: ["a": .map(["b": .integer(10), "z": .integer(99)]), "new": .map(["x": .string("y")]), "ignored": .null]),
            mask: ["a.b", "new.x", "gone", "absent.deep"])
        let document = try F.apply(write, to: current).document
        #expect(
            document?.fields == [
                "a": .map(["b": .integer(10), "c": .integer(2)]), "keep": .boolean(true), "new": .map(["x": .string("y")]),
            ])
    }

    @Test func patchDeletesMaskedPathsAbsentFromTheWrite() throws {
        let current = F.document(["a": .map(["b": .integer(1), "c": .integer(2)]), "d": .integer(3), "e": .integer(4)])
        let document = try F.apply(F.write(.update(fields: [:]), mask: ["a.b", "d", "e.f"]), to: current).document
        #expect(document?.fields == ["a": .map(["c": .integer(2)]), "e": .integer(4)])
    }

    @Test func patchQuotesSegmentsWithBackticks() throws {
        let current = F.document(["a.b": .integer(1), "a": .map(["b": .integer(2)])])
        let write = F.write(.update(fields: ["a.b": .integer(5)]), mask: ["`a.b`"])
        #expect(try F.apply(write, to: current).document?.fields == ["a.b": .integer(5), "a": .map(["b": .integer(2)])])
    }

    @Test func patchReplacesANonMapIntermediate() throws {
        let current = F.document(["a": .integer(1)])
        let write = F.write(.update(fields: ["a": .map(["b": .map(["c": .integer(7)])])]), mask: ["a.b.c"])
        #expect(try F.apply(write, to: current).document?.fields == ["a": .map(["b": .map(["c": .integer(7)])])])
    }

    @Test func patchOfAMissingDocumentCreatesIt() throws {
        let (document, result) = try F.apply(F.write(.update(fields: ["a": .integer(1)]), mask: ["a", "b"]), to: nil)
        #expect(document?.fields == ["a": .integer(1)])
        #expect(document?.createTime == F.commit)
        #expect(result.updateTime == F.commit)
    }

    @Test func emptyMaskWithTransformsKeepsOtherFields() throws {
        let current = F.document(["count": .integer(1), "keep": .string("me")])
        let write = F.write(
            .update(fields: [:]), mask: [],
            transforms: [FieldTransform(field: FieldPath(segments: ["count"]), kind: .increment(.integer(5)))])
        let (document, result) = try F.apply(write, to: current)
        #expect(document?.fields == ["count": .integer(6), "keep": .string("me")])
        #expect(result.transformResults == [.integer(6)])
    }

    @Test func legacyTransformAppliesToTheCurrentDocumentOrCreatesIt() throws {
        let transform = FieldTransform(field: FieldPath(segments: ["n"]), kind: .increment(.integer(1)))
        let write = F.write(.transform, transforms: [transform])
        let created = try F.apply(write, to: nil)
        #expect(created.document == Document(path: F.path, fields: ["n": .integer(1)], createTime: F.commit, updateTime: F.commit))
        let updated = try F.apply(write, to: F.document(["n": .integer(1), "o": .null]))
        #expect(updated.document?.fields == ["n": .integer(2), "o": .null])
        #expect(updated.document?.createTime == F.created)

        let empty = #expect(throws: FirestoreError.self) { try F.apply(F.write(.transform), to: nil) }
        #expect(empty?.status.rawValue == "INVALID_ARGUMENT")
    }

    @Test func aWriteThatChangesNothingKeepsTheUpdateTime() throws {
        let current = F.document(["a": .integer(1), "n": .double(.nan), "m": .map(["z": .double(-0.0)])])
        let (document, result) = try F.apply(
            F.write(.update(fields: ["a": .integer(1), "n": .double(.nan), "m": .map(["z": .double(-0.0)])])), to: current)
        #expect(document.map { Write.identical($0.fields, current.fields) } == true)
        #expect(document?.updateTime == F.updated)
        #expect(result.updateTime == F.updated)

        // An integer and the equal double are different stored values.
        #expect(try F.apply(F.write(.update(fields: ["a": .double(1)]), mask: ["a"]), to: current).result.updateTime == F.commit)
        #expect(
            try F.apply(F.write(.update(fields: ["m": .map(["z": .double(0.0)])]), mask: ["m"]), to: current).result.updateTime
                == F.commit)
    }

    @Test func masksAndTransformsBelongToUpdates() {
        let mask = #expect(throws: FirestoreError.self) { try F.apply(F.write(.delete, mask: ["a"]), to: nil) }
        #expect(mask?.message == "update_mask can be set only when the operation is update.")
        let transform = FieldTransform(field: FieldPath(segments: ["a"]), kind: .serverTimestamp)
        let delete = #expect(throws: FirestoreError.self) { try F.apply(F.write(.delete, transforms: [transform]), to: nil) }
        #expect(delete?.status.rawValue == "INVALID_ARGUMENT")
        let reserved = #expect(throws: FirestoreError.self) {
            try F.apply(F.write(.update(fields: [:]), mask: ["a.__b__"]), to: nil)
        }
        #expect(reserved?.message == "Invalid property path \"a.__b__\".")
    }

    @Test func theResultMustRespectTheLimits() {
        let error = #expect(throws: FirestoreError.self) {
            try F.apply(F.write(.update(fields: ["a": .array([.array([])])])), to: nil)
        }
        #expect(error?.message == "Property array contains an invalid nested entity.")
    }
}
