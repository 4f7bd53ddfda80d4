import EmulatorCore
import Testing

@testable import FirestoreEmulator

@Suite struct WriteJSONTests {
    typealias F = WriteFixture

    func decode(_ json: JSONValue) throws(FirestoreError) -> Write {
        try Write(json: json, database: F.database, field: "writes[0]")
    }

    /// The message of the error decoding `json` throws.
    func message(_ json: JSONValue) -> String? {
        do {
            _ = try decode(json)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func decodesAPatchWithTransformsAndAPrecondition() throws {
        let write = try decode([
            "update": ["name": .string(F.name), "fields": ["a": ["mapValue": ["fields": ["b": ["integerValue": "1"]]]]]],
            "updateMask": ["fieldPaths": ["a.b", "`c-d`"]],
            "updateTransforms": [
                ["fieldPath": "n", "increment": ["integerValue": "2"]],
                ["fieldPath": "t", "setToServerValue": "REQUEST_TIME"],
                ["fieldPath": "l", "appendMissingElements": ["values": [["stringValue": "x"]]]],
                ["fieldPath": "r", "removeAllFromArray": [:]],
                ["fieldPath": "hi", "maximum": ["doubleValue": .double(2.5)]],
                ["fieldPath": "lo", "minimum": ["integerValue": "-1"]],
            ],
            "currentDocument": ["exists": true],
        ])
        #expect(write.path == F.path)
        guard case .update(let fields) = write.operation else {
            Issue.record("not an update: \(write.operation)")
            return
        }
        #expect(fields == ["a": .map(["b": .integer(1)])])
        #expect(write.updateMask == [FieldPath(segments: ["a", "b"]), FieldPath(segments: ["c-d"])])
        #expect(write.transforms.map(\.field.description) == ["n", "t", "l", "r", "hi", "lo"])
        #expect(write.precondition == .exists(true))
        let applied = try F.apply(write, to: F.document([:]))
        #expect(applied.result.transformResults == [.integer(2), F.commit.wholeMilliseconds.value, .null, .null, .double(2.5), .integer(-1)])
    }

    @Test func acceptsProtoFieldNamesAndNullMembers() throws {
        let write = try decode([
            "update": ["name": .string(F.name)], "update_mask": ["field_paths": ["x"]],
            "update_transforms": [["field_path": "t", "set_to_server_value": 1]],
            "current_document": ["update_time": "2023-11-14T22:13:20.000001Z"], "delete": nil,
        ])
        guard case .update(let fields) = write.operation else {
            Issue.record("not an update")
            return
        }
        #expect(fields.isEmpty)
        #expect(write.updateMask == [FieldPath(segments: ["x"])])
        #expect(write.precondition == .updateTime(Timestamp(seconds: 1_700_000_000, nanos: 1_000)))
    }

    @Test func decodesDeleteVerifyAndLegacyTransform() throws {
        let delete = try decode(["delete": .string(F.name), "currentDocument": ["exists": false]])
        guard case .delete = delete.operation else {
            Issue.record("not a delete")
            return
        }
        #expect(delete.precondition == .exists(false))
        #expect(delete.updateMask == nil)

        let verify = try decode(["verify": .string(F.name), "currentDocument": [:]])
        guard case .verify = verify.operation else {
            Issue.record("not a verify")
            return
        }
        #expect(verify.precondition == nil)

        let transform = try decode([
            "transform": ["document": .string(F.name), "fieldTransforms": [["fieldPath": "n", "increment": ["integerValue": "1"]]]]
        ])
        guard case .transform = transform.operation else {
            Issue.record("not a transform")
            return
        }
        #expect(transform.transforms.count == 1)
    }

    @Test func anEmptyMaskIsAPatchOfNothing() throws {
        let write = try decode(["update": ["name": .string(F.name)], "updateMask": [:]])
        #expect(write.updateMask == [])
        #expect(try decode(["update": ["name": .string(F.name)], "updateMask": nil]).updateMask == nil)
    }

    @Test func rejectsUnknownMembers() {
        #expect(
            message(["update": ["name": .string(F.name)], "mask": [:]])
                == "Invalid JSON payload received. Unknown name \"mask\" at 'writes[0]': Cannot find field.")
        #expect(
            message(["update": ["name": .string(F.name), "id": "x"]])
                == "Invalid JSON payload received. Unknown name \"id\" at 'writes[0].update': Cannot find field.")
        #expect(
            message(["delete": .string(F.name), "updateTransforms": [["fieldPath": "a", "append": [:]]]])
                == "Invalid JSON payload received. Unknown name \"append\" at 'writes[0].update_transforms[0]': Cannot find field.")
    }

    @Test func needsExactlyOneOperation() {
        #expect(message(["currentDocument": ["exists": true]]) == "Invalid value at 'writes[0]': one of update, delete, verify, transform must be set.")
        #expect(
            message(["update": ["name": .string(F.name)], "delete": .string(F.name)])
                == "Invalid JSON payload received. Oneof field 'operation' is already set. Cannot set 'delete' at 'writes[0]'.")
    }

    @Test func documentsMustBeInTheRequestsDatabase() {
        #expect(
            message(["delete": "projects/other/databases/(default)/documents/rooms/a"])
                == "The request was for database 'projects/p/databases/(default)' but was attempting to access database 'projects/other/databases/(default)'"
        )
        #expect(message(["delete": "projects/p/databases/(default)/documents/rooms"]) != nil)
    }

    @Test func rejectsMalformedMembers() {
        #expect(message(["delete": 5]) == "Invalid value at 'writes[0].delete' (TYPE_STRING), 5")
        #expect(message("x") == "Invalid value at 'writes[0]' (type.googleapis.com/google.firestore.v1.Write), \"x\"")
        #expect(
            message(["delete": .string(F.name), "currentDocument": ["exists": "yes"]])
                == "Invalid value at 'writes[0].current_document.exists' (TYPE_BOOL), \"yes\"")
        #expect(
            message(["delete": .string(F.name), "currentDocument": ["exists": true, "updateTime": "2024-01-01T00:00:00Z"]])
                == "Invalid JSON payload received. Oneof field 'condition_type' is already set. Cannot set 'updateTime' at 'writes[0].current_document'."
        )
        #expect(
            message(["update": ["name": .string(F.name)], "updateTransforms": [["fieldPath": "t", "setToServerValue": "NOW"]]])
                == "Invalid value at 'writes[0].update_transforms[0].set_to_server_value' (type.googleapis.com/google.firestore.v1.DocumentTransform.FieldTransform.ServerValue), \"NOW\""
        )
        #expect(message(["update": ["name": .string(F.name)], "updateTransforms": [["fieldPath": "t"]]]) != nil)
    }

    @Test func fieldPathsFollowProductionsSyntax() throws {
        #expect(try FieldPath.fieldPaths(["a.b", "_x1.Y_2", "`0foo`.`a-b`", "`a\\`b`"]).map(\.segments) == [["a", "b"], ["_x1", "Y_2"], ["0foo", "a-b"], ["a`b"]])
        for text in ["0foo", "a-b", "a.1", "", "a..b", "`a", "é", String(repeating: "a", count: 1501)] {
            let error = #expect(throws: FirestoreError.self) { try FieldPath(validating: text) }
            #expect(error?.message == "Invalid property path \"\(text)\".")
        }
        #expect(
            message(["update": ["name": .string(F.name)], "updateMask": ["fieldPaths": ["24_hours"]]])
                == "Invalid property path \"24_hours\".")
    }

    @Test func encodesWriteResultsAndDocuments() {
        #expect(WriteResult(updateTime: nil).json == [:])
        #expect(
            WriteResult(updateTime: F.commit, transformResults: [.integer(1), .null]).json
                == ["updateTime": "2023-11-14T22:16:40.000003Z", "transformResults": [["integerValue": "1"], ["nullValue": nil]]])
        #expect(
            F.document([:]).json(in: F.database)
                == ["name": .string(F.name), "createTime": "2023-11-14T22:13:20.000001Z", "updateTime": "2023-11-14T22:15:00.000002Z"])
        #expect(F.document(["a": .boolean(true)]).json(in: F.database)["fields"] == ["a": ["booleanValue": true]])
    }
}
