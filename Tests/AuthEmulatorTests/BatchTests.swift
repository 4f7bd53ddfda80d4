import EmulatorCore
import HTTPTypes
import Testing

@testable import AuthEmulator

/// The admin path prefix of the test project.
let adminProject = "projects/\(AuthTestClient.projectID)"

extension AuthTestClient.Session {
    /// `accounts:batchCreate` with `users` and any top-level options (hash parameters, `allowOverwrite`, ...).
    func importUsers(_ users: JSONValue, options: [String: JSONValue] = [:], tenant: String? = nil) async throws
        -> Reply
    {
        var body = options
        body["users"] = users
        let prefix = tenant.map { "\(adminProject)/tenants/\($0)" } ?? adminProject
        return try await call("\(prefix)/accounts:batchCreate", .object(body), admin: true)
    }

    /// `GET accounts:batchGet` with a query string such as `maxResults=2`.
    func listUsers(_ query: String = "", tenant: String? = nil) async throws -> Reply {
        let prefix = tenant.map { "\(adminProject)/tenants/\($0)" } ?? adminProject
        let uri = "/identitytoolkit.googleapis.com/v1/\(prefix)/accounts:batchGet" + (query.isEmpty ? "" : "?\(query)")
        return try await request(.get, uri, admin: true)
    }
}

extension Reply {
    /// The localIds of `users` (batchGet) or `userInfo` (query), in order.
    var localIds: [String] {
        (json["users"] ?? json["userInfo"])?.arrayValue?.compactMap { $0["localId"]?.stringValue } ?? []
    }
}

/// The admin batch endpoints: `accounts:batchCreate|batchGet|batchDelete|query` and `:createSessionCookie`.
@Suite enum BatchTests {}

extension BatchTests {
    @Suite struct Create {
        @Test func rawPasswordImportSignsIn() async throws {
            try await AuthTestClient().run { session in
                let reply = try await session.importUsers([
                    ["localId": "u1", "email": "U1@Example.com", "rawPassword": "secret123"]
                ])
                #expect(reply.status == 200)
                #expect(reply.json == ["kind": "identitytoolkit#UploadAccountResponse", "error": []])
                let signIn = try await session.call(
                    "accounts:signInWithPassword", ["email": "u1@example.com", "password": "secret123"])
                #expect(signIn.json["localId"] == "u1", "\(signIn.json)")
            }
        }

        @Test func fakeHashImportSignsInAndIsStoredVerbatim() async throws {
            try await AuthTestClient().run { session in
                let hash = "fakeHash:salt=beach:password=hawaii"
                _ = try await session.importUsers([
                    ["localId": "foo", "email": "foo@example.com", "salt": "beach", "passwordHash": .string(hash)]
                ])
                let user = try await session.listUsers().json["users"]?.arrayValue?.first
                #expect(user?["passwordHash"] == .string(hash))
                #expect(user?["salt"] == "beach")
                let signIn = try await session.call(
                    "accounts:signInWithPassword", ["email": "foo@example.com", "password": "hawaii"])
                #expect(signIn.json["localId"] == "foo")
            }
        }

        /// The body firebase-admin (Python) 7.7.0 sends for `import_users` with an HMAC hash.
        @Test func adminSDKImportBody() async throws {
            try await AuthTestClient().run { session in
                let reply = try await session.importUsers(
                    [
                        [
                            "localId": "i1", "email": "i1@example.com", "displayName": "I1", "phoneNumber": "+15555550199",
                            "photoUrl": "https://z.example/i.png", "emailVerified": true, "disabled": false,
                            "customAttributes": "{\"a\": 1}", "createdAt": 1_700_000_000_000,
                            "lastLoginAt": 1_700_000_001_000, "passwordHash": "-_8AaGFzaA==", "salt": "c2FsdP8=",
                            "providerUserInfo": [["rawId": "g1", "providerId": "google.com", "email": "i1@gmail.com"]],
                        ],
                        ["localId": "i2"],
                    ], options: ["hashAlgorithm": "HMAC_SHA256", "signerKey": "c2VjcmV0"])
                #expect(reply.json["error"] == [])
                let users = try await session.listUsers().json["users"]?.arrayValue ?? []
                #expect(users.count == 2)
                let user = users.first { $0["localId"] == "i1" }
                #expect(user?["createdAt"] == "1700000000000")
                #expect(user?["lastLoginAt"] == "1700000001000")
                #expect(user?["passwordHash"] == "-_8AaGFzaA==")
                #expect(user?["customAttributes"] == "{\"a\": 1}")
                #expect(user?["emailVerified"] == true)
                let providers = user?["providerUserInfo"]?.arrayValue?.compactMap { $0["providerId"]?.stringValue }
                #expect(providers?.sorted() == ["google.com", "password", "phone"])
            }
        }

        @Test func invalidEntriesAreReportedPerIndex() async throws {
            try await AuthTestClient().run { session in
                let longClaims = "{\"a\":\"\(String(repeating: "x", count: 998))\"}"
                let reply = try await session.importUsers([
                    ["email": "foo@example.com"],
                    ["localId": "test1"],
                    ["localId": "test2", "email": "not#an$email"],
                    ["localId": "test3", "phoneNumber": "not#a$phone%number"],
                    ["localId": "test4", "customAttributes": "not#a$json%object"],
                    ["localId": "test5", "customAttributes": "{\"sub\": \"123\"}"],
                    ["localId": "test6", "customAttributes": .string(longClaims)],
                    ["localId": "test7", "providerUserInfo": [["providerId": "google.com"]]],
                    ["localId": "test8", "providerUserInfo": [["rawId": "012345"]]],
                    ["localId": "test9", "providerUserInfo": [["federatedId": "foo-bar"]]],
                    ["localId": "test10", "mfaInfo": [["phoneInfo": "+15555550100"]]],
                    ["localId": "test11", "email": "someone@example.com", "mfaInfo": [["phoneInfo": "+15555550100"]]],
                ])
                #expect(reply.status == 200)
                let expected: [(Int64, String)] = [
                    (0, "localId is missing"), (2, "email is invalid"), (3, "phone number format is invalid"),
                    (4, "Invalid custom claims provided."), (5, "Custom claims provided include a reserved claim."),
                    (6, "Custom claims provided are too large."), (7, "federatedId or (providerId & rawId) is required"),
                    (8, "federatedId or (providerId & rawId) is required"),
                    (
                        9,
                        "((Parsing federatedId is not implemented in Auth Emulator; please specify providerId AND rawId as a workaround.))"
                    ),
                    (10, "Second factor account requires email to be presented."),
                    (11, "Second factor account requires email to be verified."),
                ]
                #expect(reply.json["error"] == .array(expected.map { ["index": .int($0.0), "message": .string($0.1)] }))
                #expect(try await session.listUsers().localIds == ["test1"])
            }
        }

        static let requestErrors: [(JSONValue, String)] = [
            ([:], "MISSING_USER_ACCOUNT"),
            (["users": []], "MISSING_USER_ACCOUNT"),
            (["users": [["localId": "a"], ["localId": "a"]]], "DUPLICATE_LOCAL_ID : a"),
            (
                ["sanityCheck": true, "users": [["localId": "a", "email": "x@y.z"], ["localId": "b", "email": "x@y.z"]]],
                "DUPLICATE_EMAIL : x@y.z"
            ),
            (
                [
                    "sanityCheck": true,
                    "users": [
                        ["localId": "a", "providerUserInfo": [["providerId": "google.com", "rawId": "dup"]]],
                        ["localId": "b", "providerUserInfo": [["providerId": "google.com", "rawId": "dup"]]],
                    ],
                ], "DUPLICATE_RAW_ID : Provider id(google.com), Raw id(dup)"
            ),
        ]

        @Test(arguments: requestErrors)
        func requestWideErrors(body: JSONValue, message: String) async throws {
            try await AuthTestClient().run { session in
                let reply = try await session.call("\(adminProject)/accounts:batchCreate", body, admin: true)
                #expect(reply.status == 400)
                #expect(reply.errorMessage == message)
                #expect(try await session.listUsers().localIds.isEmpty)
            }
        }

        @Test func schemaErrorFailsWholeRequest() async throws {
            try await AuthTestClient().run { session in
                let reply = try await session.importUsers([["localId": "a"], ["localId": "b", "emailVerified": "yes"]])
                #expect(reply.status == 400)
                #expect(reply.json["error"]?["status"] == "INVALID_ARGUMENT")
            }
        }

        @Test func existingUsersNeedAllowOverwrite() async throws {
            try await AuthTestClient().run { session in
                _ = try await session.importUsers([["localId": "u1", "email": "old@example.com", "rawPassword": "hawaii1"]])
                let blocked = try await session.importUsers([["localId": "u1"]])
                #expect(
                    blocked.json["error"] == [
                        ["index": 0, "message": "localId belongs to an existing account - can not overwrite."]
                    ])
                let overwrite = try await session.importUsers(
                    [["localId": "u1", "phoneNumber": "+15555550100", "displayName": "New"]],
                    options: ["allowOverwrite": true])
                #expect(overwrite.json["error"] == [])
                let user = try await session.listUsers().json["users"]?.arrayValue?.first
                #expect(user?["email"] == nil)
                #expect(user?["passwordHash"] == nil)
                #expect(user?["displayName"] == "New")
                #expect(user?["providerUserInfo"]?.arrayValue?.map { $0["providerId"] } == ["phone"])
            }
        }

        @Test func emailOwnedByAnotherUser() async throws {
            try await AuthTestClient().run { session in
                _ = try await session.signUp(email: "taken@example.com")
                let checked = try await session.importUsers(
                    [["localId": "a", "email": "Taken@example.com"]], options: ["sanityCheck": true])
                #expect(checked.json["error"]?.arrayValue?.first?["message"] == "email exists in other account in database")
                let unchecked = try await session.importUsers([["localId": "b", "email": "taken@example.com"]])
                #expect(
                    unchecked.json["error"]?.arrayValue?.first?["message"]
                        == "((Auth Emulator does not support importing duplicate email: taken@example.com))")
            }
        }

        @Test func secondFactorsAreImported() async throws {
            try await AuthTestClient().run { session in
                let reply = try await session.importUsers([
                    [
                        "localId": "foo", "email": "foo@example.com", "emailVerified": true,
                        "mfaInfo": [["enrolledAt": "2123-04-05T06:07:28.990Z", "phoneInfo": "+15555550100"]],
                    ]
                ])
                #expect(reply.json["error"] == [])
                let factor = try await session.listUsers().json["users"]?.arrayValue?.first?["mfaInfo"]?.arrayValue?.first
                #expect(factor?["enrolledAt"] == "2123-04-05T06:07:28.990Z")
                #expect(factor?["phoneInfo"] == "+15555550100")
                #expect(factor?["mfaEnrollmentId"]?.stringValue?.count == 28)
            }
        }

        @Test func tenantImportsStampTheTenant() async throws {
            try await AuthTestClient().run { session in
                let reply = try await session.importUsers(
                    [["localId": "foo", "email": "me@example.com", "rawPassword": "notasecret"]], tenant: "t1")
                #expect(reply.json["error"] == [])
                #expect(try await session.listUsers(tenant: "t1").json["users"]?.arrayValue?.first?["tenantId"] == "t1")
                #expect(try await session.listUsers().localIds.isEmpty)
                let mismatch = try await session.importUsers([["localId": "bar", "tenantId": "t2"]], tenant: "t1")
                #expect(
                    mismatch.json["error"]?.arrayValue?.first?["message"] == "Tenant id in userInfo does not match the tenant id in request.")
            }
        }

        @Test func legacyUploadAndDownloadAccount() async throws {
            try await AuthTestClient().run { session in
                let legacy = "/www.googleapis.com/identitytoolkit/v3/relyingparty"
                let upload = try await session.request(
                    .post, "\(legacy)/uploadAccount", body: ["targetProjectId": "demo-test", "users": [["localId": "a"]]],
                    admin: true)
                #expect(upload.json["error"] == [])
                let download = try await session.request(
                    .post, "\(legacy)/downloadAccount", body: ["targetProjectId": "demo-test", "maxResults": 1], admin: true)
                #expect(download.localIds == ["a"])
                #expect(download.json["nextPageToken"] == "a")
                let missing = try await session.request(.post, "\(legacy)/downloadAccount", body: [:], admin: true)
                #expect(missing.errorMessage == "INSUFFICIENT_PERMISSION")
            }
        }
    }
}

extension BatchTests {
    @Suite struct Get {
        @Test func pagesByLocalId() async throws {
            try await AuthTestClient().run { session in
                _ = try await session.importUsers([["localId": "c"], ["localId": "a"], ["localId": "b"]])
                let first = try await session.listUsers("maxResults=2")
                #expect(first.json["kind"] == "identitytoolkit#DownloadAccountResponse")
                #expect(first.localIds == ["a", "b"])
                #expect(first.json["nextPageToken"] == "b")
                let second = try await session.listUsers("maxResults=2&nextPageToken=b")
                #expect(second.localIds == ["c"])
                #expect(second.json["nextPageToken"] == nil)
            }
        }

        @Test func fullPageAlwaysCarriesAToken() async throws {
            try await AuthTestClient().run { session in
                _ = try await session.importUsers([["localId": "a"], ["localId": "b"]])
                let full = try await session.listUsers("maxResults=2")
                #expect(full.localIds == ["a", "b"])
                #expect(full.json["nextPageToken"] == "b")
                let after = try await session.listUsers("nextPageToken=b")
                #expect(after.json == ["kind": "identitytoolkit#DownloadAccountResponse"])
            }
        }

        @Test func requiresAdminCredentials() async throws {
            try await AuthTestClient().run { session in
                let reply = try await session.request(
                    .get, "/identitytoolkit.googleapis.com/v1/\(adminProject)/accounts:batchGet?key=fake")
                #expect(reply.status == 401)
            }
        }
    }
}

extension BatchTests {
    @Suite struct Delete {
        @Test func deletesOnlyDisabledUsersUnlessForced() async throws {
            try await AuthTestClient().run { session in
                _ = try await session.importUsers([["localId": "a", "disabled": true], ["localId": "b"]])
                let reply = try await session.call(
                    "\(adminProject)/accounts:batchDelete", ["localIds": ["a", "b", "nobody"]], admin: true)
                #expect(
                    reply.json == [
                        "errors": [
                            [
                                "index": 1, "localId": "b",
                                "message": "NOT_DISABLED : Disable the account before batch deletion.",
                            ]
                        ]
                    ])
                #expect(try await session.listUsers().localIds == ["b"])
                let forced = try await session.call(
                    "\(adminProject)/accounts:batchDelete", ["localIds": ["b"], "force": true], admin: true)
                #expect(forced.json == [:])
                #expect(try await session.listUsers().localIds.isEmpty)
            }
        }

        @Test(arguments: [0, 1001])
        func rejectsEmptyAndOversizedLists(count: Int) async throws {
            try await AuthTestClient().run { session in
                let ids = JSONValue.array((0..<count).map { .string("u\($0)") })
                let reply = try await session.call("\(adminProject)/accounts:batchDelete", ["localIds": ids], admin: true)
                #expect(reply.errorMessage == "LOCAL_ID_LIST_EXCEEDS_LIMIT")
            }
        }
    }
}

extension BatchTests {
    @Suite struct Query {
        static let users: JSONValue = [
            ["localId": "a", "email": "zed@example.com", "displayName": "Bo", "createdAt": "300"],
            ["localId": "b", "email": "amy@example.com", "displayName": "Al", "createdAt": "100"],
            ["localId": "c", "email": "max@example.com", "displayName": "Cy", "createdAt": "2000"],
        ]

        func query(_ session: AuthTestClient.Session, _ body: JSONValue, path: String = "accounts:query") async throws
            -> Reply
        {
            try await session.call(path == "accounts:query" ? "\(adminProject)/accounts:query" : path, body, admin: true)
        }

        @Test func countsAndListsUsers() async throws {
            try await AuthTestClient().run { session in
                _ = try await session.importUsers(Self.users)
                #expect(try await query(session, ["returnUserInfo": false]).json == ["recordsCount": "3"])
                let all = try await query(session, [:], path: "\(adminProject):queryAccounts")
                #expect(all.json["recordsCount"] == "3")
                #expect(all.localIds == ["a", "b", "c"])
            }
        }

        static let orderings: [(JSONValue, [String])] = [
            (["sortBy": "USER_EMAIL"], ["b", "c", "a"]),
            (["sortBy": "NAME", "order": "DESC"], ["c", "a", "b"]),
            (["sortBy": "CREATED_AT"], ["b", "a", "c"]),
            (["order": "DESC", "limit": "2"], ["c", "b"]),
            (["limit": 1, "offset": "1"], ["b"]),
            (["expression": [["email": "MAX@example.com"]]], ["c"]),
            (["expression": [["userId": "a", "email": "amy@example.com"]]], []),
        ]

        @Test(arguments: orderings)
        func sortsFiltersAndPages(body: JSONValue, expected: [String]) async throws {
            try await AuthTestClient().run { session in
                _ = try await session.importUsers(Self.users)
                let reply = try await query(session, body)
                #expect(reply.localIds == expected)
                #expect(reply.json["recordsCount"] == .string(String(expected.count)))
                #expect(reply.json["userInfo"] != nil)
            }
        }

        @Test func unknownSortFieldIsInvalidArgument() async throws {
            try await AuthTestClient().run { session in
                let reply = try await query(session, ["sortBy": "SHOE_SIZE"])
                #expect(reply.status == 400)
                #expect(reply.json["error"]?["status"] == "INVALID_ARGUMENT")
            }
        }
    }
}

extension BatchTests {
    @Suite struct SessionCookie {
        @Test func cookieCarriesTheIDTokenClaims() async throws {
            try await AuthTestClient().run { session in
                let user = try await session.signUp(email: "cookie@example.com")
                let reply = try await session.call(
                    "\(adminProject):createSessionCookie", ["idToken": user["idToken"] ?? nil, "validDuration": 3600],
                    admin: true)
                #expect(reply.status == 200)
                let cookie = claims(of: reply.json["sessionCookie"])
                #expect(cookie["iss"] == "https://session.firebase.google.com/demo-test")
                #expect(cookie["aud"] == "demo-test")
                #expect(cookie["sub"] == user["localId"])
                #expect(cookie["email"] == "cookie@example.com")
                let lifetime = (cookie["exp"]?.intValue ?? 0) - (cookie["iat"]?.intValue ?? 0)
                #expect(lifetime == 3600)
            }
        }

        @Test func defaultsToTwoWeeks() async throws {
            try await AuthTestClient().run { session in
                let user = try await session.signUp(email: "cookie@example.com")
                let reply = try await session.call(
                    "\(adminProject):createSessionCookie", ["idToken": user["idToken"] ?? nil], admin: true)
                let cookie = claims(of: reply.json["sessionCookie"])
                #expect((cookie["exp"]?.intValue ?? 0) - (cookie["iat"]?.intValue ?? 0) == 1_209_600)
            }
        }

        static let errors: [(JSONValue, String)] = [
            ([:], "MISSING_ID_TOKEN"),
            (["idToken": "not-a-jwt"], "INVALID_ID_TOKEN"),
            (["idToken": "not-a-jwt", "validDuration": "299"], "INVALID_DURATION"),
            (["idToken": "not-a-jwt", "validDuration": 1_209_601], "INVALID_DURATION"),
        ]

        @Test(arguments: errors)
        func rejects(body: JSONValue, message: String) async throws {
            try await AuthTestClient().run { session in
                let reply = try await session.call("\(adminProject):createSessionCookie", body, admin: true)
                #expect(reply.status == 400)
                #expect(reply.errorMessage == message)
            }
        }
    }
}

extension BatchTests {
    /// Hashes made with Python's hashlib/hmac for password `password` and salt `NaCl` (base64url `TmFDbA==`); the
    /// constructions are the ones firebase-admin-node's integration tests sign in with against production.
    @Suite struct PasswordHashes {
        static let vectors: [(options: JSONValue, hash: String)] = [
            (["hashAlgorithm": "HMAC_SHA256", "signerKey": "c2VjcmV0"], "C5WKh-Qa5RkMlq-h5DX5XKsBOsQt_DEKEaUBAMQqrlI="),
            (["hashAlgorithm": "HMAC_MD5", "signerKey": "c2VjcmV0"], "4tZGVrzeu9LZ9eWZ03FrLg=="),
            (["hashAlgorithm": "SHA256", "rounds": 1], "sgq3SqJUn34ToOiGy0RxzC5w_NLOgHXA7mSDq7phMvM="),
            (
                ["hashAlgorithm": "SHA512", "rounds": 2],
                "HvkkGOOY_v3igRbnP29yIRUtvlB4JribAD48LBqOY3mDkq8nU6tII0lIed-3xC-7szDJ1iJjSR-5rwOkylwnbg=="
            ),
            (["hashAlgorithm": "SHA1", "rounds": 1], "4ynUBUr_OQVsCQQZk_6FmoYdJy8="),
            (["hashAlgorithm": "MD5", "rounds": 0], "NjJkMTlmN2U3ZGRjYjU5NDY3Mjg3NzZkMjVlNDEwZWQ="),
            (
                ["hashAlgorithm": "PBKDF2_SHA256", "rounds": 1000],
                "Z9vMeFSKdTKPaJASW-wsWYdujeLkySyZsgGHKnYOKuwH-SijZE92OGKJ-62nJEc9y5RQUd4ZsTTZMLUrNY9R0w=="
            ),
            (["hashAlgorithm": "PBKDF_SHA1", "rounds": 10], "gasSnUbVxqMyciGdcYP9iT5aG1s="),
        ]

        @Test(arguments: vectors)
        func verifiesProductionHashes(options: JSONValue, hash: String) throws {
            let spec = try #require(try ImportedPasswordHash(RequestBody(options.objectValue ?? [:])))
            #expect(spec.matches("password", passwordHash: hash, salt: "TmFDbA=="))
            #expect(!spec.matches("passw0rd", passwordHash: hash, salt: "TmFDbA=="))
        }

        @Test func unverifiableAlgorithmsNeverMatch() throws {
            let spec = try #require(try ImportedPasswordHash(RequestBody(["hashAlgorithm": "BCRYPT"])))
            #expect(!spec.matches("password", passwordHash: "JDJhJDEwJA==", salt: nil))
            #expect(try ImportedPasswordHash(RequestBody([:])) == nil)
        }
    }
}
