import EmulatorCore
import Testing

@testable import FirestoreEmulator

@Suite struct WriteLimitsTests {
    typealias F = WriteFixture

    /// `{nested: {nested: … 1}}` with `levels` maps around the integer.
    func nested(_ levels: Int) -> FirestoreValue {
        (0..<levels).reduce(FirestoreValue.integer(1)) { value, _ in .map(["nested": value]) }
    }

    @Test func storageSizeFollowsTheDocumentedExample() throws {
        // https://firebase.google.com/docs/firestore/storage-size: users/jeff/tasks/my_task_id is 147 bytes.
        let task = Document(
            path: DocumentPath(segments: ["users", "jeff", "tasks", "my_task_id"]),
            fields: [
                "type": .string("Personal"), "done": .boolean(false), "priority": .integer(1),
                "description": .string("Learn Cloud Firestore"),
            ],
            createTime: F.created, updateTime: F.created)
        #expect(DocumentLimits.nameSize(of: task.path) == 44)
        #expect(try DocumentLimits.storageSize(of: task) == 147)
    }

    @Test func valueSizesFollowTheDocumentedRules() throws {
        let fields: [String: FirestoreValue] = [
            "n": .null, "t": .timestamp(seconds: 0, nanos: 0), "g": .geoPoint(latitude: 0, longitude: 0),
            "b": .bytes([1, 2, 3]), "d": .double(1), "a": .array([.integer(1), .string("é")]),
            "m": .map(["k": .boolean(true)]), "r": .reference("projects/p/databases/(default)/documents/c/d"),
        ]
        // Field names 8 × 2; values 1 + 8 + 16 + 3 + 8 + (8 + 3) + (2 + 1) + (2 + 2 + 16).
        let expected = DocumentLimits.nameSize(of: F.path) + 16 + 70 + 32
        #expect(try DocumentLimits.storageSize(of: F.document(fields)) == expected)
        #expect(DocumentLimits.referenceSize("projects/p/databases/(default)/documents") == 16)
        #expect(DocumentLimits.referenceSize("projects/p/databases/(default)/documents/users/jeff") == 27)
    }

    @Test func aDocumentOfExactlyOneMebibytePasses() throws {
        let base = try DocumentLimits.storageSize(of: F.document(["a": .string(""), "b": .string("")]))
        let payload = DocumentLimits.maximumDocumentSize - base
        let exact = F.document(["a": .string(String(repeating: "x", count: payload / 2)), "b": .string(String(repeating: "y", count: payload - payload / 2))])
        #expect(try DocumentLimits.storageSize(of: exact) == 1_048_576)
        try DocumentLimits.validate(exact, in: F.database)
        #expect(try F.apply(F.write(.update(fields: exact.fields)), to: nil).document != nil)
    }

    @Test func aDocumentOneByteOverFails() throws {
        let base = try DocumentLimits.storageSize(of: F.document(["a": .string(""), "b": .string("")]))
        let payload = DocumentLimits.maximumDocumentSize - base + 1
        let fields: [String: FirestoreValue] = [
            "a": .string(String(repeating: "x", count: payload / 2)), "b": .string(String(repeating: "y", count: payload - payload / 2)),
        ]
        let error = #expect(throws: FirestoreError.self) { try F.apply(F.write(.update(fields: fields)), to: nil) }
        #expect(error?.status.rawValue == "INVALID_ARGUMENT")
        #expect(
            error?.message
                == "Document '\(F.name)' cannot be written because its size (1,048,577 bytes) exceeds the maximum allowed size of 1,048,576 bytes."
        )
    }

    @Test func stringsAndBytesHaveTheirOwnLimit() throws {
        try DocumentLimits.validate(F.document(["blob": .bytes(Array(repeating: 0, count: 1_048_487))]), in: F.database)
        let string = #expect(throws: FirestoreError.self) {
            try DocumentLimits.validate(F.document(["blob": .string(String(repeating: "x", count: 1_048_488))]), in: F.database)
        }
        #expect(string?.message == "The value of property \"blob\" is longer than 1048487 bytes.")
        let bytes = #expect(throws: FirestoreError.self) {
            try DocumentLimits.validate(
                F.document(["m": .map(["we.ird": .array([.bytes(Array(repeating: 0, count: 1_048_488))])])]), in: F.database)
        }
        #expect(bytes?.message == "The value of property \"m.`we.ird`\" is longer than 1048487 bytes.")
    }

    @Test func valuesNestTwentyLevelsDeep() throws {
        try DocumentLimits.validate(F.document(["nested": nested(20)]), in: F.database)
        let error = #expect(throws: FirestoreError.self) {
            try DocumentLimits.validate(F.document(["ok": .integer(1), "nested": nested(21)]), in: F.database)
        }
        #expect(error?.message == "Property nested contains an invalid nested entity.")
        // An empty map may sit at the deepest level.
        try DocumentLimits.validate(F.document(["x": nested(20).replacingLeaf(with: .map([:]))]), in: F.database)
    }

    @Test func arraysCountAsLevels() throws {
        let deep = (0..<10).reduce(FirestoreValue.integer(1)) { value, _ in .array([.map(["v": value])]) }
        try DocumentLimits.validate(F.document(["links": deep]), in: F.database)
        let deeper = FirestoreValue.array([.map(["v": deep])])
        let error = #expect(throws: FirestoreError.self) { try DocumentLimits.validate(F.document(["links": deeper]), in: F.database) }
        #expect(error?.message == "Property links contains an invalid nested entity.")
    }

    @Test func arraysCannotDirectlyContainArrays() throws {
        try DocumentLimits.validate(F.document(["a": .array([.map(["b": .array([.integer(1)])])])]), in: F.database)
        let error = #expect(throws: FirestoreError.self) {
            try DocumentLimits.validate(F.document(["rows": .array([.integer(1), .array([])])]), in: F.database)
        }
        #expect(error?.message == "Property array contains an invalid nested entity.")
    }

    @Test func fieldNamesMustBeNonEmptyUnreservedAndShort() throws {
        let empty = #expect(throws: FirestoreError.self) {
            try DocumentLimits.validate(F.document(["a": .map(["": .null])]), in: F.database)
        }
        #expect(empty?.message == "Field name \"\" in field a is invalid because it is empty.")
        let reserved = #expect(throws: FirestoreError.self) {
            try DocumentLimits.validate(F.document(["__x__": .null]), in: F.database)
        }
        #expect(reserved?.message == "Field name \"__x__\" in the document is invalid because it is reserved.")
        #expect(throws: FirestoreError.self) {
            try DocumentLimits.validate(F.document(["m": .map(["__type__": .string("x")])]), in: F.database)
        }
        let long = #expect(throws: FirestoreError.self) {
            try DocumentLimits.validate(F.document([String(repeating: "k", count: 1501): .null]), in: F.database)
        }
        #expect(long?.status.rawValue == "INVALID_ARGUMENT")
        try DocumentLimits.validate(
            F.document([String(repeating: "k", count: 1500): .null, "__x": .null, "x__": .null]), in: F.database)
    }

    @Test func vectorsKeepTheirTypeField() throws {
        let vector: FirestoreValue = .map(["__type__": .string("__vector__"), "value": .array([.double(1), .double(2)])])
        try DocumentLimits.validate(F.document(["embedding": vector]), in: F.database)
    }

    @Test func sizesPrintWithThousandsSeparators() {
        #expect(DocumentLimits.grouped(0) == "0")
        #expect(DocumentLimits.grouped(999) == "999")
        #expect(DocumentLimits.grouped(1000) == "1,000")
        #expect(DocumentLimits.grouped(1_048_576) == "1,048,576")
    }
}

extension FirestoreValue {
    /// This chain of single-entry maps with its innermost value replaced by `leaf`.
    fileprivate func replacingLeaf(with leaf: FirestoreValue) -> FirestoreValue {
        guard case .map(let fields) = self, let (key, value) = fields.first else { return leaf }
        return .map([key: value.replacingLeaf(with: leaf)])
    }
}
