import DatabaseEmulator
import EmulatorCore
import EmulatorHTTP
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@Suite struct DatabaseRESTTests {
    private func withEmulator(_ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let emulator = try DatabaseEmulator(projectID: "demo-rest", port: 0)
        let app = Application(responder: emulator.responder)
        try await app.test(.router) { client in try await body(client) }
    }

    private func json(_ response: TestResponse) throws -> JSONValue {
        try JSONValue.parse(String(buffer: response.body))
    }

    @Test func writesAndReadsWithEveryMethod() async throws {
        try await withEmulator { client in
            let put = try await client.execute(uri: "/users/u1.json?ns=r1", method: .put, body: ByteBuffer(string: #"{"name":"Ada","age":36}"#))
            #expect(put.status == .ok)
            #expect(try json(put) == ["name": "Ada", "age": 36])
            let patch = try await client.execute(uri: "/users.json?ns=r1", method: .patch, body: ByteBuffer(string: #"{"u1/age":37,"u2":{"name":"Bo"}}"#))
            #expect(try json(patch) == ["u1/age": 37, "u2": ["name": "Bo"]])
            let post = try await client.execute(uri: "/log.json?ns=r1", method: .post, body: ByteBuffer(string: #""hello""#))
            let name = try json(post)["name"]?.stringValue ?? ""
            #expect(name.count == 20)
            let get = try await client.execute(uri: "/.json?ns=r1", method: .get)
            #expect(try json(get) == ["users": ["u1": ["name": "Ada", "age": 37], "u2": ["name": "Bo"]], "log": [.init(stringLiteral: name): "hello"]])
            let shallow = try await client.execute(uri: "/users.json?ns=r1&shallow=true", method: .get)
            #expect(try json(shallow) == ["u1": true, "u2": true])
            let delete = try await client.execute(uri: "/users/u2.json?ns=r1", method: .delete)
            #expect(String(buffer: delete.body) == "null")
            let silent = try await client.execute(uri: "/x.json?ns=r1&print=silent", method: .put, body: ByteBuffer(string: "1"))
            #expect(silent.status == .noContent)
        }
    }

    @Test func queriesNeedJSONEncodedParameters() async throws {
        try await withEmulator { client in
            _ = try await client.execute(
                uri: "/d.json?ns=r2", method: .put, body: ByteBuffer(string: #"{"a":{"h":3},"b":{"h":1},"c":{"h":2}}"#))
            let last = try await client.execute(uri: #"/d.json?ns=r2&orderBy=%22h%22&limitToLast=2"#, method: .get)
            #expect(try json(last) == ["a": ["h": 3], "c": ["h": 2]])
            let bad = try await client.execute(uri: "/d.json?ns=r2&limitToLast=2", method: .get)
            #expect(bad.status == .badRequest)
            #expect(try json(bad)["error"]?.stringValue != nil)
        }
    }

    @Test func etagsMakeWritesConditional() async throws {
        try await withEmulator { client in
            let first = try await client.execute(
                uri: "/c.json?ns=r3", method: .put, headers: [.ifMatch: "null_etag"], body: ByteBuffer(string: "1"))
            #expect(first.status == .ok)
            let read = try await client.execute(
                uri: "/c.json?ns=r3", method: .get, headers: [HTTPField.Name("X-Firebase-ETag")!: "true"])
            let etag = try #require(read.headers[.eTag])
            let stale = try await client.execute(
                uri: "/c.json?ns=r3", method: .put, headers: [.ifMatch: "null_etag"], body: ByteBuffer(string: "2"))
            #expect(stale.status == .preconditionFailed)
            #expect(String(buffer: stale.body) == "1")
            #expect(stale.headers[.eTag] == etag)
            let fresh = try await client.execute(
                uri: "/c.json?ns=r3", method: .put, headers: [.ifMatch: etag], body: ByteBuffer(string: "2"))
            #expect(fresh.status == .ok)
        }
    }

    @Test func rulesAreSetPerNamespaceAndEnforced() async throws {
        try await withEmulator { client in
            let rules = #"{"rules": {".read": "auth != null", /* users only */ ".write": false}}"#
            let unauthorized = try await client.execute(uri: "/.settings/rules.json?ns=r4", method: .put, body: ByteBuffer(string: rules))
            #expect(unauthorized.status == .unauthorized)
            let set = try await client.execute(
                uri: "/.settings/rules.json?ns=r4", method: .put, headers: [.authorization: "Bearer owner"],
                body: ByteBuffer(string: rules))
            #expect(set.status == .ok)
            let denied = try await client.execute(uri: "/a.json?ns=r4", method: .get)
            #expect(denied.status == .unauthorized)
            #expect(try json(denied) == ["error": "Permission denied"])
            let token = UnsignedJWT(payload: ["sub": "u1", "user_id": "u1"]).encoded
            let allowed = try await client.execute(uri: "/a.json?ns=r4&auth=\(token)", method: .get)
            #expect(allowed.status == .ok)
            let write = try await client.execute(uri: "/a.json?ns=r4&auth=\(token)", method: .put, body: ByteBuffer(string: "1"))
            #expect(write.status == .unauthorized)
            let broken = try await client.execute(
                uri: "/.settings/rules.json?ns=r4", method: .put, headers: [.authorization: "Bearer owner"],
                body: ByteBuffer(string: #"{"rules": {".read": "nope("}}"#))
            #expect(broken.status == .badRequest)
            let anonymousRead = try await client.execute(uri: "/.settings/rules.json?ns=r4", method: .get)
            #expect(anonymousRead.status == .unauthorized)
            let text = try await client.execute(
                uri: "/.settings/rules.json?ns=r4", method: .get, headers: [.authorization: "Bearer owner"])
            #expect(String(buffer: text.body) == rules)
        }
    }

    @Test func numbersBeyondTheDoubleRangeAreRefusedNotStoredAsNull() async throws {
        try await withEmulator { client in
            for number in ["1e400", String(repeating: "9", count: 400)] {
                let put = try await client.execute(
                    uri: "/n.json?ns=r9", method: .put, body: ByteBuffer(string: #"{"big":\#(number),"ok":1}"#))
                #expect(put.status == .badRequest)
            }
            let shallow = try await client.execute(uri: "/n.json?ns=r9&shallow=true", method: .get)
            #expect(String(buffer: shallow.body) == "null")
        }
    }

    @Test func namespacesAndCallbacksMustBeNames() async throws {
        try await withEmulator { client in
            for namespace in ["..", "%00", "a.b", "a%2Fb", String(repeating: "x", count: 101)] {
                let response = try await client.execute(uri: "/.json?ns=\(namespace)", method: .get)
                #expect(response.status == .badRequest, "\(namespace)")
            }
            let listed = try await client.execute(uri: "/.inspect/databases.json", method: .get)
            #expect(try json(listed) == [])
            for callback in ["alert(1)//", "1a", "a..b", "a%20b"] {
                let response = try await client.execute(uri: "/.json?ns=r10&callback=\(callback)", method: .get)
                #expect(response.status == .badRequest, "\(callback)")
            }
            let named = try await client.execute(uri: "/.json?ns=r10&callback=window.cb_1$", method: .get)
            #expect(String(buffer: named.body) == "window.cb_1$(null);")
            #expect(named.headers[.xContentTypeOptions] == "nosniff")
        }
    }

    @Test func badBodiesAreRefusedWithProductionsMessage() async throws {
        try await withEmulator { client in
            let bad = try await client.execute(uri: "/a.json?ns=r5", method: .put, body: ByteBuffer(string: "{nope"))
            #expect(bad.status == .badRequest)
            #expect(try json(bad) == ["error": "Invalid data; couldn't parse JSON object, array, or value."])
            let key = try await client.execute(uri: "/a.json?ns=r5", method: .put, body: ByteBuffer(string: #"{"a$":1}"#))
            #expect(key.status == .badRequest)
            let list = try await client.execute(uri: "/.inspect/databases.json?ns=demo-rest", method: .get)
            #expect(try json(list).arrayValue?.contains(["name": "r5"]) == true)
        }
    }
}
