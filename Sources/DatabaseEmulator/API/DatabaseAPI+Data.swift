import DatabaseRules
import DatabaseTree
import EmulatorCore
import EmulatorHTTP
import Foundation
import HashTreeCollections
import HTTPTypes
import Hummingbird

extension DatabaseAPI {
    /// `GET|PUT|PATCH|POST|DELETE /<path>.json` (POST with `X-HTTP-Method-Override` as another method).
    func data(_ request: Request, at path: DatabasePath, in database: Database, fields: FormFields) async throws -> Response {
        let auth = try Self.auth(request, fields: fields)
        let export = fields["format"] == "export"
        let format: (DataNode) -> JSONValue = { export ? $0.exportJSON : $0.valueJSON }
        var method = request.method
        if method == .post, let override = request.headers[HTTPField.Name("X-HTTP-Method-Override")!] {
            method = HTTPRequest.Method(override.uppercased()) ?? method
        }
        let silent = fields["print"] == "silent"
        let wantsETag = request.headers[HTTPField.Name("X-Firebase-ETag")!]?.lowercased() == "true"
        do {
            switch method {
            case .get:
                if request.headers[.accept]?.contains("text/event-stream") == true {
                    return try EventStream.open(path: path, query: try Self.query(fields), auth: auth, in: database, export: export)
                }
                return try read(request, path: path, database: database, auth: auth, fields: fields, format: format, wantsETag: wantsETag)
            case .put, .patch, .post:
                let body = try await Self.json(request)
                let ifMatch = request.headers[.ifMatch]
                let echo: JSONValue
                let written: DatabasePath
                switch method {
                case .put:
                    guard case .set(let node) = try database.write(.set(path, body), auth: auth, ifMatch: ifMatch) else {
                        fatalError("a set reports the node it set")
                    }
                    echo = format(node)
                    written = path
                case .patch:
                    let update = try WriteRequest.update(at: path, members: body)
                    guard case .update(let nodes) = try database.write(update, auth: auth, ifMatch: ifMatch) else {
                        fatalError("an update reports the nodes it set")
                    }
                    echo = .object(Dictionary(nodes.map { ($0.0.wire, format($0.1)) }, uniquingKeysWith: { $1 }))
                    written = path
                default:
                    let name = pushIDs.next(now: database.now)
                    try database.write(.set(path.child(name), body), auth: auth, ifMatch: ifMatch)
                    echo = ["name": .string(name)]
                    written = path.child(name)
                }
                if silent { return Response(status: .noContent) }
                var headers = HTTPFields()
                if wantsETag || ifMatch != nil { headers[.eTag] = Database.etag(of: database.root.node(at: written)) }
                return Self.body(echo, fields: fields, headers: headers)
            case .delete:
                try database.write(.set(path, .null), auth: auth, ifMatch: request.headers[.ifMatch])
                if silent { return Response(status: .noContent) }
                var headers = HTTPFields()
                if wantsETag || request.headers[.ifMatch] != nil { headers[.eTag] = Database.etag(of: .empty) }
                return Self.body(.null, fields: fields, headers: headers)
            default:
                throw Failure(405, "Invalid method: \(request.method.rawValue)")
            }
        } catch let error as DatabaseError {
            throw Self.failure(error, format: format)
        }
    }

    private func read(
        _ request: Request, path: DatabasePath, database: Database, auth: DatabaseAuth, fields: FormFields,
        format: (DataNode) -> JSONValue, wantsETag: Bool
    ) throws -> Response {
        // A shallow read cannot be ordered; other query parameters it ignores (firebase-tools' export asks
        // the emulator for `shallow=true&limitToFirst=1` to find namespaces with data).
        let shallow = fields["shallow"] == "true"
        if shallow && fields["orderBy"] != nil {
            throw Failure(400, "Mixing 'shallow' and querying parameters is not supported")
        }
        let query = shallow ? nil : try Self.query(fields)
        if strictIndexes, let query, let missing = Self.missingIndex(of: query, at: path, in: database) {
            throw Failure(400, "Index not defined, add \".indexOn\": \"\(missing)\", for path \"\(path)\", to the rules")
        }
        let node = try database.read(path, query: query ?? .all, auth: auth)
        // The ETag hashes the whole subtree, so it is computed only when the request asks for one.
        let sendETag = wantsETag || request.headers[.ifNoneMatch] != nil
        let etag = sendETag ? Database.etag(of: node) : nil
        if let etag, let ifNoneMatch = request.headers[.ifNoneMatch], ifNoneMatch == etag {
            return Response(status: .notModified, headers: [.eTag: etag])
        }
        if fields["print"] == "silent" { return Response(status: .noContent) }
        let value: JSONValue
        if shallow, node.leaf == nil {
            value = node.isEmpty ? .null : .object(Dictionary(uniqueKeysWithValues: node.children.keys.map { ($0, JSONValue.bool(true)) }))
        } else {
            value = format(node)
        }
        return Self.body(value, fields: fields, headers: etag.map { [.eTag: $0] } ?? [:])
    }

    /// The `.indexOn` entry a query ordered by a child (or by value: `.value`) needs at `path` and the rules
    /// lack; `nil` when it has its index or needs none.
    static func missingIndex(of query: DatabaseQuery, at path: DatabasePath, in database: Database) -> String? {
        let needed: String
        switch query.index {
        case .child(let child): needed = child.wire
        case .value: needed = ".value"
        case .key, .priority: return nil
        }
        return database.rules.indexOn(path).contains(needed) ? nil : needed
    }

    /// The query of a REST request, if it has query parameters.
    static func query(_ fields: FormFields) throws(Failure) -> DatabaseQuery? {
        var parameters: [String: String] = [:]
        for (name, value) in fields.pairs where parameters[name] == nil { parameters[name] = value }
        do {
            return try DatabaseQuery(restParameters: parameters)
        } catch {
            throw Failure(400, error.message)
        }
    }

    /// The request body as JSON; production's message when it is not.
    static func json(_ request: Request) async throws -> JSONValue {
        let body: Data
        do {
            body = try await request.collectBody(limit: bodyLimit)
        } catch is APIError {
            throw Failure(413, "Data to write exceeds the maximum size that can be modified with a single request.")
        }
        do {
            return try JSONValue.parse(body)
        } catch {
            throw Failure(400, "Invalid data; couldn't parse JSON object, array, or value.")
        }
    }
}
