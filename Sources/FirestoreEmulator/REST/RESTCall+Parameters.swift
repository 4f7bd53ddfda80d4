import EmulatorCore
import EmulatorHTTP
import Foundation

/// Decoding the parameters REST methods share: masks, preconditions, consistency selectors, transactions.
extension RESTCall {
    /// `mask.fieldPaths` (repeated): the fields to return; `nil` when absent (all fields).
    func mask() throws(FirestoreError) -> [FieldPath]? {
        guard query["mask.fieldPaths"] != nil else { return nil }
        return try fieldPaths("mask.fieldPaths")
    }

    /// The body's `DocumentMask` member `name` (`mask`: the fields to return); `nil` when absent.
    func bodyMask(_ name: String = "mask") throws(FirestoreError) -> [FieldPath]? {
        try body[name].map { (mask) throws(FirestoreError) in
            try FirestoreREST.fieldPaths(mask, field: ProtoName.snakeCase(name))
        }
    }

    /// The body's `currentDocument` (a `Precondition`); `nil` when absent or empty.
    func bodyPrecondition() throws(FirestoreError) -> Precondition? {
        guard let json = body["currentDocument"], json != [:] else { return nil }
        return try Precondition(json: json, field: "current_document")
    }

    /// Every value of the repeated field-path parameter `name`.
    func fieldPaths(_ name: String) throws(FirestoreError) -> [FieldPath] {
        try FieldPath.fieldPaths(query.all(name))
    }

    /// An integer parameter.
    func integer(_ name: String) throws(FirestoreError) -> Int? {
        guard let text = query[name] else { return nil }
        guard let value = Int(text) else {
            throw FirestoreError(.invalidArgument, "Invalid value at '\(name)' (TYPE_INT32), \"\(text)\"")
        }
        return value
    }

    /// `currentDocument.exists` / `currentDocument.updateTime`.
    func precondition() throws(FirestoreError) -> Precondition? {
        if let exists = query["currentDocument.exists"] {
            guard exists == "true" || exists == "false" else {
                throw FirestoreError(.invalidArgument, "Invalid value at 'current_document.exists' (TYPE_BOOL), \"\(exists)\"")
            }
            return .exists(exists == "true")
        }
        if let text = query["currentDocument.updateTime"] {
            return .updateTime(try Self.timestamp(text, field: "current_document.update_time"))
        }
        return nil
    }

    /// The consistency selector of a GET: `transaction` or `readTime` query parameters.
    func queryConsistency() throws(FirestoreError) -> FirestoreStore.Consistency {
        if let transaction = query["transaction"] {
            return .transaction(try Self.transactionID(.string(transaction), field: "transaction"))
        }
        if let readTime = query["readTime"] {
            return .readTime(try Self.timestamp(readTime, field: "read_time"))
        }
        return .latest
    }

    /// The consistency selector of a POST body: `transaction`, `newTransaction` or `readTime` (at most one).
    func bodyConsistency() throws(FirestoreError) -> FirestoreStore.Consistency {
        let given = ["transaction", "newTransaction", "readTime"].filter { body[$0] != nil }
        guard given.count <= 1 else {
            throw FirestoreError(.invalidArgument, "Only one of transaction, newTransaction and readTime may be set.")
        }
        if let transaction = body["transaction"] {
            return .transaction(try Self.transactionID(transaction, field: "transaction"))
        }
        if let options = body["newTransaction"] {
            return .newTransaction(try Self.transactionMode(options))
        }
        if let readTime = body["readTime"] {
            guard let text = readTime.stringValue else {
                throw FirestoreError(.invalidArgument, "Invalid value at 'read_time' (type.googleapis.com/google.protobuf.Timestamp), \(readTime.serialized())")
            }
            return .readTime(try Self.timestamp(text, field: "read_time"))
        }
        return .latest
    }

    /// `TransactionOptions`: `{readOnly: {readTime}}` or `{readWrite: {retryTransaction}}` (read-write when empty).
    static func transactionMode(_ options: JSONValue) throws(FirestoreError) -> TransactionMode {
        guard let object = options.objectValue else {
            throw FirestoreError(.invalidArgument, "Invalid value at 'options': expected TransactionOptions.")
        }
        for key in object.keys where key != "readOnly" && key != "readWrite" {
            throw FirestoreError(.invalidArgument, "Invalid JSON payload received. Unknown name \"\(key)\" at 'options': Cannot find field.")
        }
        if let readOnly = object["readOnly"] {
            guard object["readWrite"] == nil else {
                throw FirestoreError(.invalidArgument, "Only one of readOnly and readWrite may be set.")
            }
            guard let text = readOnly["readTime"]?.stringValue else { return .readOnly(readTime: nil) }
            return .readOnly(readTime: try timestamp(text, field: "options.read_only.read_time"))
        }
        let retrying = try object["readWrite"]?["retryTransaction"].map { (id) throws(FirestoreError) in
            try transactionID(id, field: "options.read_write.retry_transaction")
        }
        return .readWrite(retrying: retrying)
    }

    /// A transaction id: base64 bytes.
    static func transactionID(_ value: JSONValue, field: String) throws(FirestoreError) -> [UInt8] {
        guard let text = value.stringValue, let data = Data(base64Encoded: text) ?? Data(base64URLEncoded: text),
            !data.isEmpty
        else {
            throw FirestoreError(.invalidArgument, "Invalid value at '\(field)' (TYPE_BYTES), \(value.serialized())")
        }
        return Array(data)
    }

    /// An RFC 3339 timestamp parameter.
    static func timestamp(_ text: String, field: String) throws(FirestoreError) -> Timestamp {
        guard let (seconds, nanos) = FirestoreValue.parseTimestamp(text) else {
            throw FirestoreError(.invalidArgument, "Invalid value at '\(field)' (type.googleapis.com/google.protobuf.Timestamp), Field '\(field)', Invalid time format: \(text)")
        }
        return Timestamp(seconds: seconds, nanos: nanos)
    }
}
