import EmulatorCore
import EmulatorHTTP
import Foundation

/// Methods on the documents root: BatchGetDocuments, BeginTransaction, Commit, Rollback, BatchWrite.
extension FirestoreREST {
    /// `POST /v1/{database}/documents:batchGet`: one response per name, `found` or `missing`, each with the
    /// read time; the first carries a transaction begun with `newTransaction`. Streamed as a JSON array.
    func batchGet(_ database: DatabaseName, _ call: RESTCall) throws(FirestoreError) -> JSONValue {
        try call.checkBody(allowing: ["database", "documents", "mask", "transaction", "newTransaction", "readTime"])
        try Self.checkDatabase(call.body, database)
        let mask = try call.bodyMask()
        var paths: [DocumentPath] = []
        for (index, name) in (call.body["documents"]?.arrayValue ?? []).enumerated() {
            guard let text = name.stringValue else {
                throw FirestoreError(.invalidArgument, "Invalid value at 'documents[\(index)]' (TYPE_STRING), \(name.serialized())")
            }
            let (named, path) = try DocumentPath.parse(documentName: text)
            guard named == database else { throw FirestoreError.otherDatabase(text, database) }
            paths.append(path)
        }
        let request = BatchGetRequest(database: database, paths: paths, mask: mask, consistency: try call.bodyConsistency())
        let result = try service.batchGet(request, call.context)
        let readTime = JSONValue.string(result.readTime.description)
        var responses: [JSONValue] = result.documents.map { path, document in
            if let document { return ["found": document.json(in: database), "readTime": readTime] }
            return ["missing": .string(path.name(in: database)), "readTime": readTime]
        }
        if let transaction = result.transaction {
            responses.insert(["transaction": .string(Data(transaction).base64EncodedString())], at: 0)
        }
        return .array(responses)
    }

    /// `POST /v1/{database}/documents:beginTransaction`.
    func beginTransaction(_ database: DatabaseName, _ call: RESTCall) throws(FirestoreError) -> JSONValue {
        try call.checkBody(allowing: ["database", "options"])
        try Self.checkDatabase(call.body, database)
        let mode = try call.body["options"].map(RESTCall.transactionMode) ?? .readWrite()
        let id = try service.beginTransaction(database, mode: mode)
        return ["transaction": .string(Data(id).base64EncodedString())]
    }

    /// `POST /v1/{database}/documents:commit`: every write or none, at one commit time; nil when the commit
    /// has to wait for an older transaction first (`FirestoreService.mustWait`): `commitWaiting` answers it.
    func commit(_ database: DatabaseName, _ call: RESTCall) throws(FirestoreError) -> CommitJSON? {
        try commit(try Self.commitRequest(database, call), call.context)
    }

    /// Commits `request` unless it has to wait for an older transaction first (nil).
    func commit(_ request: CommitRequest, _ context: CallContext) throws(FirestoreError) -> CommitJSON? {
        guard !service.mustWait(request) else { return nil }
        return CommitJSON(outcome: try service.commit(request, context))
    }

    /// `POST /v1/{database}/documents:commit`, waiting for older transactions as `FirestoreService.commitWaiting`.
    func commitWaiting(_ database: DatabaseName, _ call: RESTCall) async throws(FirestoreError) -> CommitJSON {
        CommitJSON(outcome: try await service.commitWaiting(try Self.commitRequest(database, call), call.context))
    }

    /// A commit body's request, read the general way (`RESTWriteReading` reads the common ones from bytes).
    static func commitRequest(_ database: DatabaseName, _ call: RESTCall) throws(FirestoreError) -> CommitRequest {
        try call.checkBody(allowing: ["database", "writes", "transaction"])
        try Self.checkDatabase(call.body, database)
        let writes = try Self.writes(call.body, database)
        let transaction = try call.body["transaction"].map { (id) throws(FirestoreError) in
            try RESTCall.transactionID(id, field: "transaction")
        }
        return CommitRequest(database: database, writes: writes, transaction: transaction)
    }

    /// `POST /v1/{database}/documents:rollback`.
    func rollback(_ database: DatabaseName, _ call: RESTCall) throws(FirestoreError) -> JSONValue {
        try call.checkBody(allowing: ["database", "transaction"])
        try Self.checkDatabase(call.body, database)
        guard let id = call.body["transaction"] else {
            throw FirestoreError(.invalidArgument, "transaction is required.")
        }
        try service.rollback(database, transaction: try RESTCall.transactionID(id, field: "transaction"))
        return [:]
    }

    /// `POST /v1/{database}/documents:batchWrite`: each write on its own, with a status per write.
    func batchWrite(_ database: DatabaseName, _ call: RESTCall) throws(FirestoreError) -> JSONValue {
        try call.checkBody(allowing: ["database", "writes", "labels"])
        try Self.checkDatabase(call.body, database)
        let writes = try Self.writes(call.body, database)
        let outcomes = try service.batchWrite(BatchWriteRequest(database: database, writes: writes), call.context)
        var results: [JSONValue] = []
        var statuses: [JSONValue] = []
        for outcome in outcomes {
            switch outcome {
            case .success(let result):
                results.append(result.json)
                statuses.append([:])
            case .failure(let error):
                results.append([:])
                statuses.append(["code": .int(Int64(error.grpcCode)), "message": .string(error.message)])
            }
        }
        return ["writeResults": .array(results), "status": .array(statuses)]
    }

    /// The `writes` of a commit or batch write, all in `database`.
    private static func writes(_ body: JSONValue, _ database: DatabaseName) throws(FirestoreError) -> [Write] {
        let items = body["writes"]?.arrayValue ?? []
        try FirestoreService.checkWriteCount(items.count)
        var writes: [Write] = []
        for (index, item) in items.enumerated() {
            writes.append(try Write(json: item, database: database, field: "writes[\(index)]"))
        }
        return writes
    }

    /// A `database` body field, when given, must be the database of the URL.
    static func checkDatabase(_ body: JSONValue, _ database: DatabaseName) throws(FirestoreError) {
        guard let named = body["database"]?.stringValue, !named.isEmpty else { return }
        guard named == database.description else {
            throw FirestoreError(.invalidArgument, "The database \"\(named)\" in the request body does not match the URL's \"\(database)\".")
        }
    }

    /// A `DocumentMask` body value: `{fieldPaths: [...]}`.
    static func fieldPaths(_ mask: JSONValue, field: String) throws(FirestoreError) -> [FieldPath] {
        var texts: [String] = []
        for item in mask["fieldPaths"]?.arrayValue ?? [] {
            guard let text = item.stringValue else {
                throw FirestoreError(.invalidArgument, "Invalid value at '\(field).field_paths' (TYPE_STRING), \(item.serialized())")
            }
            texts.append(text)
        }
        return try FieldPath.fieldPaths(texts)
    }
}

/// Commit's answer, `{commitTime, writeResults: [{transformResults, updateTime}]}`, written as JSON text
/// without a `JSONValue` tree: the same text as the tree of `WriteResult.json`s. A write's update time is
/// the commit time, so that text is formatted once.
struct CommitJSON: JSONWritable {
    let outcome: FirestoreStore.CommitOutcome

    func write(to writer: inout JSONWriter) {
        writer.raw(#"{"commitTime":"#)
        outcome.commitTime.write(to: &writer)
        if !outcome.results.isEmpty {
            writer.raw(#","writeResults":"#)
            writer.array(outcome.results) { result, writer in
                // Keys in sorted order: transformResults, updateTime; each left out when unset or empty.
                writer.raw("{")
                if !result.transformResults.isEmpty {
                    writer.raw(#""transformResults":"#)
                    writer.array(result.transformResults) { $0.writeJSON(to: &$1) }
                }
                if let updateTime = result.updateTime {
                    writer.raw(result.transformResults.isEmpty ? #""updateTime":"# : #","updateTime":"#)
                    updateTime.write(to: &writer)
                }
                writer.raw("}")
            }
        }
        writer.raw("}")
    }
}
