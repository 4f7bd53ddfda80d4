import EmulatorCore
import EmulatorHTTP
import Foundation

/// Methods on the documents root: BatchGetDocuments, BeginTransaction, Commit, Rollback, BatchWrite.
extension FirestoreAPI {
    /// The most writes one commit or batch write takes (production's limit).
    static let maximumWrites = 500

    /// `POST /v1/{database}/documents:batchGet`: one response per name, `found` or `missing`, each with the
    /// read time; the first carries a transaction begun with `newTransaction`. Streamed as a JSON array.
    func batchGet(_ database: DatabaseName, _ call: RESTCall) throws(APIError) -> JSONValue {
        try call.checkBody(allowing: ["database", "documents", "mask", "transaction", "newTransaction", "readTime"])
        try Self.checkDatabase(call.body, database)
        let mask = try call.bodyMask()
        var paths: [DocumentPath] = []
        for (index, name) in (call.body["documents"]?.arrayValue ?? []).enumerated() {
            guard let text = name.stringValue else {
                throw .firestore(.invalidArgument, "Invalid value at 'documents[\(index)]' (TYPE_STRING), \(name.serialized())")
            }
            let (named, path) = try DocumentPath.parse(documentName: text)
            guard named == database else { throw Self.otherDatabase(text, database) }
            paths.append(path)
        }
        let (documents, stamp) = try store.read(database, consistency: try call.bodyConsistency()) {
            (view: inout DatabaseView) throws(APIError) -> [Document?] in
            for path in paths {
                try rules.authorizeGet(path, credential: call.context.credential, view: view, time: call.context.now)
            }
            return paths.map { view.document(at: $0) }
        }
        var responses: [JSONValue] = zip(paths, documents).map { path, document in
            var response: [String: JSONValue] = ["readTime": .string(stamp.readTime.description)]
            if let document {
                response["found"] = document.masked(by: mask).json(in: database)
            } else {
                response["missing"] = .string(path.name(in: database))
            }
            return .object(response)
        }
        if let transaction = stamp.transaction {
            responses.insert(["transaction": .string(Data(transaction).base64EncodedString())], at: 0)
        }
        return .array(responses)
    }

    /// `POST /v1/{database}/documents:beginTransaction`.
    func beginTransaction(_ database: DatabaseName, _ call: RESTCall) throws(APIError) -> JSONValue {
        try call.checkBody(allowing: ["database", "options"])
        try Self.checkDatabase(call.body, database)
        let mode = try call.body["options"].map(RESTCall.transactionMode) ?? .readWrite()
        let id = try store.beginTransaction(database, mode: mode)
        return ["transaction": .string(Data(id).base64EncodedString())]
    }

    /// `POST /v1/{database}/documents:commit`: every write or none, at one commit time.
    func commit(_ database: DatabaseName, _ call: RESTCall) throws(APIError) -> JSONValue {
        try call.checkBody(allowing: ["database", "writes", "transaction"])
        try Self.checkDatabase(call.body, database)
        let writes = try Self.writes(call.body, database)
        let transaction = try call.body["transaction"].map { (id) throws(APIError) in
            try RESTCall.transactionID(id, field: "transaction")
        }
        let outcome = try commit(database, writes, transaction: transaction, call.context)
        var response: [String: JSONValue] = ["commitTime": .string(outcome.commitTime.description)]
        if !outcome.results.isEmpty { response["writeResults"] = .array(outcome.results.map(\.json)) }
        return .object(response)
    }

    /// `POST /v1/{database}/documents:rollback`.
    func rollback(_ database: DatabaseName, _ call: RESTCall) throws(APIError) -> JSONValue {
        try call.checkBody(allowing: ["database", "transaction"])
        try Self.checkDatabase(call.body, database)
        guard let id = call.body["transaction"] else {
            throw .firestore(.invalidArgument, "transaction is required.")
        }
        try store.rollback(database, transaction: try RESTCall.transactionID(id, field: "transaction"))
        return [:]
    }

    /// `POST /v1/{database}/documents:batchWrite`: each write on its own, with a status per write.
    func batchWrite(_ database: DatabaseName, _ call: RESTCall) throws(APIError) -> JSONValue {
        try call.checkBody(allowing: ["database", "writes", "labels"])
        try Self.checkDatabase(call.body, database)
        let writes = try Self.writes(call.body, database)
        var written = Set<DocumentPath>()
        for write in writes where !written.insert(write.path).inserted {
            throw .firestore(
                .invalidArgument,
                "A batch write cannot write to the same document more than once: \(write.path.name(in: database))")
        }
        var results: [JSONValue] = []
        var statuses: [JSONValue] = []
        for write in writes {
            do {
                let outcome = try commit(database, [write], transaction: nil, call.context)
                var result = outcome.results[0]
                if result.updateTime == nil, case .delete = write.operation { result.updateTime = outcome.commitTime }
                results.append(result.json)
                statuses.append([:])
            } catch {
                results.append([:])
                statuses.append([
                    "code": .int(Int64(error.grpcCode)),
                    "message": .string(error.message),
                ])
            }
        }
        return ["writeResults": .array(results), "status": .array(statuses)]
    }

    /// The `writes` of a commit or batch write, all in `database`.
    private static func writes(_ body: JSONValue, _ database: DatabaseName) throws(APIError) -> [Write] {
        let items = body["writes"]?.arrayValue ?? []
        guard items.count <= maximumWrites else {
            throw .firestore(.invalidArgument, "maximum \(maximumWrites) writes allowed per request")
        }
        var writes: [Write] = []
        for (index, item) in items.enumerated() {
            writes.append(try Write(json: item, database: database, field: "writes[\(index)]"))
        }
        return writes
    }

    /// A `database` body field, when given, must be the database of the URL.
    static func checkDatabase(_ body: JSONValue, _ database: DatabaseName) throws(APIError) {
        guard let named = body["database"]?.stringValue, !named.isEmpty else { return }
        guard named == database.description else {
            throw .firestore(.invalidArgument, "The database \"\(named)\" in the request body does not match the URL's \"\(database)\".")
        }
    }

    /// A name in another database than the request's.
    static func otherDatabase(_ name: String, _ database: DatabaseName) -> APIError {
        .firestore(.invalidArgument, "Document \"\(name)\" is not in the database \"\(database)\" of this request.")
    }

    /// A `DocumentMask` body value: `{fieldPaths: [...]}`.
    static func fieldPaths(_ mask: JSONValue, field: String) throws(APIError) -> [FieldPath] {
        var texts: [String] = []
        for item in mask["fieldPaths"]?.arrayValue ?? [] {
            guard let text = item.stringValue else {
                throw .firestore(.invalidArgument, "Invalid value at '\(field).field_paths' (TYPE_STRING), \(item.serialized())")
            }
            texts.append(text)
        }
        return try FieldPath.fieldPaths(texts)
    }
}
