@testable import AuthEmulator
import EmulatorCore
import Foundation
import HTTPTypes
import Testing

/// `DataExporting`: the official `auth_export` folder written and read in process, and the HTTP path firebase-tools'
/// `--import` takes (`tenants//accounts:batchCreate`).
@Suite struct ExportTests {
    static let clock = FixedClock(date: Date(timeIntervalSince1970: 1_700_000_000))
    static let project = "projects/\(AuthTestClient.projectID)"
    static let configPath = "/emulator/v1/projects/\(AuthTestClient.projectID)/config"

    /// An emulator on the fixed clock, so an import (which stamps `validSince` and `passwordUpdatedAt`) gives the
    /// same records as the original.
    static func emulator() throws -> AuthEmulator {
        try AuthEmulator(projectID: AuthTestClient.projectID, port: 0, clock: clock)
    }

    // MARK: Round trip

    @Test func roundTripKeepsUsersTenantsAndConfig() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = try Self.emulator()
        let target = try Self.emulator()
        try await AuthTestClient(emulator: source).run { session in
            let seeded = try await session.seed()
            let progress = TransferProgress()
            try await source.exportData(to: folder, progress: progress)

            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            #expect(names == ["accounts-\(seeded.tenantID).json", "accounts.json", "config.json", "tenants.json"])
            let accountsText = try String(contentsOf: folder.appendingPathComponent("accounts.json"), encoding: .utf8)
            #expect(accountsText.hasPrefix("{\n  \""), "pretty-printed with a 2-space indent, as firebase-tools writes")
            let accounts = try JSONValue.parse(accountsText)
            #expect(accounts["kind"] == "identitytoolkit#DownloadAccountResponse")
            let users = accounts["users"]?.arrayValue ?? []
            #expect(users.compactMap { $0["localId"]?.stringValue } == users.compactMap { $0["localId"]?.stringValue }.sorted())
            let pat = users.first { $0["email"] == "pat@example.com" }
            #expect(pat?["passwordHash"] == .string("fakeHash:salt=\(pat?["salt"]?.stringValue ?? ""):password=secret123"))
            let totp = users.first { $0["email"] == "totp@example.com" }
            #expect(totp?["mfaInfo"]?.arrayValue?.first?["totpSecret"] == .string(seeded.totpSecret.base32Key))
            let hmac = users.first { $0["localId"] == "hmac" }
            #expect(hmac?["passwordHashConfig"] == ["hashAlgorithm": "HMAC_SHA256", "signerKey": "c2VjcmV0", "rounds": 0])
            #expect(try Self.json(folder, "config.json") == Self.changedConfig)
            #expect(try Self.json(folder, "tenants.json")["tenants"]?.arrayValue?.first?["displayName"] == "Shop")
            let sizes = try names.map { try Data(contentsOf: folder.appendingPathComponent($0)).count }
            #expect(progress.totals.items == 6)
            #expect(progress.totals.bytes == sizes.reduce(0, +))

            try await AuthTestClient(emulator: target).run { imported in
                let counted = TransferProgress()
                try await target.importData(from: folder, progress: counted)
                #expect(counted.totals.items == 6)
                #expect(counted.totals.bytes == sizes.reduce(0, +))
                for uri in Self.views(tenantID: seeded.tenantID) {
                    let original = try await session.request(.get, uri, admin: true)
                    let copy = try await imported.request(.get, uri, admin: true)
                    #expect(copy.status == 200)
                    #expect(copy.json == Self.asImported(original.json), "\(uri)")
                }
                try await imported.checkSignIns(seeded)
            }
        }
    }

    @Test func exportOfAnEmptyEmulatorStillListsUsers() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await Self.emulator().exportData(to: folder, progress: TransferProgress())
        #expect(try Self.json(folder, "accounts.json") == ["kind": "identitytoolkit#DownloadAccountResponse", "users": []])
        #expect(try Self.json(folder, "config.json") == Self.defaultConfig)
        #expect(try Self.json(folder, "tenants.json") == ["tenants": []])
    }

    // MARK: Official exports

    @Test func importsAnOfficialExport() async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.officialExport.write(to: folder)
        let emulator = try Self.emulator()
        let progress = TransferProgress()
        try await emulator.importData(from: folder, progress: progress)
        #expect(progress.totals.items == 2)
        try await AuthTestClient(emulator: emulator).run { session in
            let users = try await session.listUsers("maxResults=-1")
            let user = try #require(users.json["users"]?.arrayValue?.first)
            #expect(users.localIds == ["123"])
            #expect(user["passwordHash"] == "fakeHash:salt=fakeSaltAbCdEfGhIjKlMnOpQrSt:password=testing")
            #expect(user["salt"] == "fakeSaltAbCdEfGhIjKlMnOpQrSt")
            #expect(user["createdAt"] == "1724200000000")
            #expect(user["lastLoginAt"] == "1724200000000")
            #expect(user["providerUserInfo"]?.arrayValue?.map { $0["providerId"] } == ["password"])
            let signIn = try await session.call(
                "accounts:signInWithPassword", ["email": "foo@example.com", "password": "testing"])
            #expect(signIn.json["localId"] == "123", "\(signIn.json)")

            let tenants = try await session.v2(.get, "tenants")
            #expect(tenants.json["tenants"]?.arrayValue?.compactMap { $0["tenantId"]?.stringValue } == ["t1", "t2"])
            #expect(tenants.json["tenants"]?.arrayValue?.first?["enableAnonymousUser"] == true, "made as on first use")
            #expect(try await session.listUsers(tenant: "t1").localIds == ["t1user"])
            let tenantSignIn = try await session.call(
                "accounts:signInWithPassword", ["email": "bar@example.com", "password": "hunter22", "tenantId": "t1"])
            #expect(claims(of: tenantSignIn.json["idToken"])["firebase"]?["tenant"] == "t1", "\(tenantSignIn.json)")
            #expect(try await session.request(.get, Self.configPath).json == Self.changedConfig)
        }
    }

    /// firebase-tools imports the project's own users with an empty tenant segment; the official emulator resolves
    /// it to the project.
    @Test func emptyTenantSegmentAddressesTheProject() async throws {
        try await AuthTestClient().run { session in
            let body = try JSONValue.parse(Self.officialExport.accounts)
            let reply = try await session.request(
                .post, "/identitytoolkit.googleapis.com/v1/\(Self.project)/tenants//accounts:batchCreate", body: body,
                admin: true)
            #expect(reply.json == ["kind": "identitytoolkit#UploadAccountResponse", "error": []])
            #expect(try await session.listUsers().localIds == ["123"])
            #expect(try await session.v2(.get, "tenants").json == ["tenants": []])
            let signIn = try await session.call(
                "accounts:signInWithPassword", ["email": "foo@example.com", "password": "testing"])
            #expect(signIn.json["localId"] == "123")
        }
    }

    @Test func batchGetWithMaxResultsMinusOneReturnsEveryUser() async throws {
        try await AuthTestClient().run { session in
            let users = (0..<25).map { index -> JSONValue in ["localId": .string(String(format: "u%02d", index))] }
            _ = try await session.importUsers(.array(users))
            let all = try await session.listUsers("maxResults=-1")
            #expect(all.localIds.count == 25)
            #expect(all.json["nextPageToken"] == nil)
            #expect(try await session.listUsers().localIds.count == 20)
        }
    }

    // MARK: Failures

    /// A bad file (`name`, `contents`) next to good ones: the import names it and changes nothing.
    @Test(arguments: [
        ("accounts-t2.json", #"{"users": ["#, "is not valid JSON"),
        ("accounts-t2.json", "[]", "is not a JSON object."),
        ("accounts-t2.json", #"{"kind": "identitytoolkit#DownloadAccountResponse"}"#, #"is not {"users": [...]}."#),
        ("accounts-t2.json", #"{"users": {}}"#, #"is not {"users": [...]}."#),
        (
            "accounts-t2.json", #"{"users": [{"localId": "fine"}, {"localId": "bad", "email": "nope"}]}"#,
            "user 1 (localId 'bad'): email is invalid"
        ),
        ("accounts-t2.json", #"{"users": [{"localId": "twice"}, {"localId": "twice"}]}"#, "DUPLICATE_LOCAL_ID : twice"),
        (
            "accounts.json", #"{"users": [{"localId": "claims", "customAttributes": "{\"sub\": 1}"}]}"#,
            "user 0 (localId 'claims'): Custom claims provided include a reserved claim."
        ),
        ("tenants.json", #"{"tenants": [{"displayName": "no id"}]}"#, "tenant 0 has no tenantId."),
        ("tenants.json", #"{"tenants": {}}"#, #"is not {"tenants": [...]}."#),
        ("config.json", #"{"signIn": {"allowDuplicateEmails": "yes"}}"#, "/allowDuplicateEmails must be boolean"),
    ])
    func badFileFailsTheImportAndChangesNothing(name: String, contents: String, message: String) async throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.officialExport.write(to: folder)
        try Data(contents.utf8).write(to: folder.appendingPathComponent(name))
        let emulator = try Self.emulator()
        try await AuthTestClient(emulator: emulator).run { session in
            _ = try await session.signUp(email: "kept@example.com")
            _ = try await session.createTenant(["displayName": "Kept"])
            let before = try await session.snapshot()
            let error = await #expect(throws: ImportError.self) {
                try await emulator.importData(from: folder, progress: TransferProgress())
            }
            #expect(error?.file == folder.appendingPathComponent(name).path)
            #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
            #expect(try await session.snapshot() == before)
        }
    }

    @Test func missingFolderIsAnImportError() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-missing-\(UUID().uuidString)")
        let error = await #expect(throws: ImportError.self) {
            try await Self.emulator().importData(from: folder, progress: TransferProgress())
        }
        #expect(error?.file == folder.path)
    }
}

// MARK: Fixtures

extension ExportTests {
    static let defaultConfig: JSONValue = [
        "signIn": ["allowDuplicateEmails": false], "emailPrivacyConfig": ["enableImprovedEmailPrivacy": false],
    ]
    static let changedConfig: JSONValue = [
        "signIn": ["allowDuplicateEmails": true], "emailPrivacyConfig": ["enableImprovedEmailPrivacy": true],
    ]

    /// An `auth_export` folder as firebase-tools writes it (no `tenants.json`): the example of the facts sheet, a
    /// tenant with a user, a tenant with none, and a changed config.
    static let officialExport = OfficialExport(
        accounts: """
            {
              "kind": "identitytoolkit#DownloadAccountResponse",
              "users": [
                {
                  "localId": "123",
                  "lastLoginAt": "1724200000000",
                  "emailVerified": false,
                  "email": "foo@example.com",
                  "salt": "fakeSaltAbCdEfGhIjKlMnOpQrSt",
                  "passwordHash": "fakeHash:salt=fakeSaltAbCdEfGhIjKlMnOpQrSt:password=testing",
                  "passwordUpdatedAt": 1724200000000,
                  "validSince": "1724200000",
                  "createdAt": "1724200000000",
                  "providerUserInfo": [
                    { "providerId": "password", "email": "foo@example.com",
                      "federatedId": "foo@example.com", "rawId": "foo@example.com" }
                  ]
                }
              ]
            }
            """,
        tenantAccounts: """
            {
              "kind": "identitytoolkit#DownloadAccountResponse",
              "users": [
                {
                  "localId": "t1user",
                  "email": "bar@example.com",
                  "salt": "fakeSaltZyXwVuTsRqPoNmLkJiHg",
                  "passwordHash": "fakeHash:salt=fakeSaltZyXwVuTsRqPoNmLkJiHg:password=hunter22",
                  "createdAt": "1724200000000",
                  "tenantId": "t1"
                }
              ]
            }
            """,
        config: """
            {
              "signIn": {
                "allowDuplicateEmails": true
              },
              "emailPrivacyConfig": {
                "enableImprovedEmailPrivacy": true
              }
            }
            """)

    /// The files of an official export.
    struct OfficialExport {
        var accounts: String
        var tenantAccounts: String
        var config: String

        func write(to folder: URL) throws {
            let files = [
                "accounts.json": accounts, "accounts-t1.json": tenantAccounts,
                "accounts-t2.json": #"{"kind": "identitytoolkit#DownloadAccountResponse", "users": []}"#,
                "config.json": config,
            ]
            for (name, text) in files { try Data(text.utf8).write(to: folder.appendingPathComponent(name)) }
        }
    }

    /// What the round trip compares: users, config and tenants as the HTTP API shows them.
    static func views(tenantID: String) -> [String] {
        let users = "/identitytoolkit.googleapis.com/v1/\(project)"
        return [
            "\(users)/accounts:batchGet?maxResults=-1", "\(users)/tenants/\(tenantID)/accounts:batchGet?maxResults=-1",
            configPath, "/identitytoolkit.googleapis.com/v2/\(project)/tenants",
        ]
    }

    /// A batchGet reply as the official import reproduces it: `lastRefreshAt` dropped, an absent `disabled` written
    /// as `false`.
    static func asImported(_ reply: JSONValue) -> JSONValue {
        guard var object = reply.objectValue, let users = object["users"]?.arrayValue else { return reply }
        object["users"] = .array(
            users.map { user in
                var fields = user.objectValue ?? [:]
                fields["lastRefreshAt"] = nil
                fields["disabled"] = fields["disabled"] ?? false
                return .object(fields)
            })
        return .object(object)
    }

    static func json(_ folder: URL, _ name: String) throws -> JSONValue {
        try JSONValue.parse(Data(contentsOf: folder.appendingPathComponent(name)))
    }
}

/// What `seed()` made, for the checks after the import.
struct SeededAuth {
    var tenantID: String
    var totpUser: VerifiedUser
    var totpSecret: TOTP
    var totpEnrollmentID: JSONValue
}

extension AuthTestClient.Session {
    /// Fills the emulator with one of each kind of user, a tenant with settings and a user, and a changed config.
    func seed() async throws -> SeededAuth {
        let project = ExportTests.project
        let config = try await request(.patch, ExportTests.configPath, body: ExportTests.changedConfig)
        #expect(config.status == 200)

        let pat = try await signUp(email: "pat@example.com", password: "secret123")
        let claimed = try await call(
            "\(project)/accounts:update",
            ["localId": pat["localId"] ?? "", "customAttributes": #"{"admin":true}"#, "displayName": "Pat"], admin: true)
        #expect(claimed.status == 200, "\(claimed.json)")
        let off = try await signUp(email: "off@example.com")
        _ = try await call("\(project)/accounts:update", ["localId": off["localId"] ?? "", "disableUser": true], admin: true)
        let federated = try await importUsers([
            [
                "localId": "fed", "email": "fed@example.com", "emailVerified": true, "rawPassword": "password1",
                "displayName": "Fed", "photoUrl": "https://example.com/fed.png", "phoneNumber": "+15555550123",
                "createdAt": 1_600_000_000_000, "lastLoginAt": 1_650_000_000_000,
                "providerUserInfo": [
                    ["providerId": "google.com", "rawId": "g-123", "email": "fed@gmail.com", "displayName": "Fed G"]
                ],
                "mfaInfo": [["mfaEnrollmentId": "sms1", "phoneInfo": "+15555550199", "displayName": "Phone"]],
            ]
        ])
        #expect(federated.json["error"] == [], "\(federated.json)")
        let hashed = try await importUsers(
            [
                [
                    "localId": "hmac", "email": "hmac@example.com", "salt": "TmFDbA==",
                    "passwordHash": "C5WKh-Qa5RkMlq-h5DX5XKsBOsQt_DEKEaUBAMQqrlI=",
                ]
            ], options: ["hashAlgorithm": "HMAC_SHA256", "signerKey": "c2VjcmV0"])
        #expect(hashed.json["error"] == [], "\(hashed.json)")

        let totpUser = try await verifiedUser(email: "totp@example.com")
        let start = try await call(
            MFATests.v2 + "mfaEnrollment:start", ["idToken": totpUser.idToken, "totpEnrollmentInfo": [:]])
        let info = try #require(start.json["totpSessionInfo"], "\(start.json)")
        let secret = try #require(TOTP(base32: info["sharedSecretKey"]?.stringValue ?? ""))
        let finalize = try await call(
            MFATests.v2 + "mfaEnrollment:finalize",
            [
                "idToken": totpUser.idToken, "displayName": "Authenticator",
                "totpVerificationInfo": [
                    "sessionInfo": info["sessionInfo"] ?? "", "verificationCode": .string(secret.code(at: ExportTests.clock.date)),
                ],
            ])
        #expect(finalize.status == 200, "\(finalize.json)")
        let lookup = try await call("\(project)/accounts:lookup", ["email": ["totp@example.com"]], admin: true)
        let enrollmentID = try #require(lookup.json["users"]?.arrayValue?.first?["mfaInfo"]?.arrayValue?.first?["mfaEnrollmentId"], "\(lookup.json)")

        let tenant = try await createTenant([
            "displayName": "Shop", "allowPasswordSignup": true,
            "mfaConfig": ["state": "ENABLED", "enabledProviders": ["PHONE_SMS"]],
        ])
        let tenantID = try #require(tenant["tenantId"]?.stringValue)
        let tenantUser = try await call(
            "accounts:signUp", ["email": "shopper@example.com", "password": "shopping1", "tenantId": .string(tenantID)])
        #expect(tenantUser.status == 200, "\(tenantUser.json)")
        return SeededAuth(tenantID: tenantID, totpUser: totpUser, totpSecret: secret, totpEnrollmentID: enrollmentID)
    }

    /// Signs in as each seeded user with its original credentials.
    func checkSignIns(_ seeded: SeededAuth) async throws {
        func signIn(_ email: String, _ password: String, tenant: String? = nil) async throws -> Reply {
            var body: [String: JSONValue] = ["email": .string(email), "password": .string(password)]
            body["tenantId"] = tenant.map(JSONValue.string)
            return try await call("accounts:signInWithPassword", .object(body))
        }
        let pat = try await signIn("pat@example.com", "secret123")
        #expect(claims(of: pat.json["idToken"])["admin"] == true, "\(pat.json)")
        #expect(claims(of: pat.json["idToken"])["name"] == "Pat")
        #expect(try await signIn("off@example.com", "password1").errorMessage == "USER_DISABLED")
        let federated = try await signIn("fed@example.com", "password1")
        #expect(federated.json["mfaInfo"]?.arrayValue?.first?["mfaEnrollmentId"] == "sms1", "\(federated.json)")
        #expect(try await signIn("hmac@example.com", "password").json["localId"] == "hmac")

        let pending = try await signIn(seeded.totpUser.email, "password1")
        let credential = try #require(pending.json["mfaPendingCredential"], "\(pending.json)")
        let second = try await call(
            MFATests.v2 + "mfaSignIn:finalize",
            [
                "mfaPendingCredential": credential, "mfaEnrollmentId": seeded.totpEnrollmentID,
                "totpVerificationInfo": ["verificationCode": .string(seeded.totpSecret.code(at: ExportTests.clock.date))],
            ])
        #expect(second.status == 200, "\(second.json)")

        let shopper = try await signIn("shopper@example.com", "shopping1", tenant: seeded.tenantID)
        #expect(claims(of: shopper.json["idToken"])["firebase"]?["tenant"] == .string(seeded.tenantID), "\(shopper.json)")
    }

    /// Users, config and tenants (with their users) as the HTTP API shows them.
    func snapshot() async throws -> [JSONValue] {
        let tenants = try await v2(.get, "tenants").json
        var views = [tenants, try await listUsers("maxResults=-1").json, try await request(.get, ExportTests.configPath).json]
        for tenant in tenants["tenants"]?.arrayValue ?? [] {
            views.append(try await listUsers("maxResults=-1", tenant: tenant["tenantId"]?.stringValue).json)
        }
        return views
    }
}

/// A new empty folder under the temporary directory.
func temporaryFolder() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-auth-export-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}
