import EmulatorCore
import HTTPTypes
import Testing

extension AuthTestClient.Session {
    /// A `v2/projects/{p}/...` admin request.
    func v2(_ method: HTTPRequest.Method, _ path: String, _ body: JSONValue? = nil) async throws -> Reply {
        try await request(
            method, "/identitytoolkit.googleapis.com/v2/projects/\(AuthTestClient.projectID)/\(path)", body: body,
            admin: true)
    }

    /// Creates a tenant and returns its resource.
    func createTenant(_ body: JSONValue = [:]) async throws -> JSONValue {
        let reply = try await v2(.post, "tenants", body)
        #expect(reply.status == 200, "\(reply.json)")
        return reply.json
    }
}

@Suite struct TenantTests {
    @Test func createUsesProductionDefaults() async throws {
        try await AuthTestClient().run { session in
            let tenant = try await session.createTenant()
            let id = try #require(tenant["tenantId"]?.stringValue)
            #expect(id.count == 28)
            #expect(
                tenant == [
                    "tenantId": .string(id), "name": .string("projects/demo-test/tenants/\(id)"),
                    "allowPasswordSignup": false, "enableEmailLinkSignin": false, "enableAnonymousUser": false,
                    "disableAuth": false, "mfaConfig": ["state": "DISABLED", "enabledProviders": []],
                ])
        }
    }

    @Test func createdTenantCanBeRead() async throws {
        try await AuthTestClient().run { session in
            let tenant = try await session.createTenant([
                "displayName": "display", "allowPasswordSignup": true, "enableAnonymousUser": true,
                "mfaConfig": ["enabledProviders": ["PROVIDER_UNSPECIFIED", "PHONE_SMS"], "state": "ENABLED"],
            ])
            #expect(tenant["displayName"] == "display")
            #expect(tenant["mfaConfig"] == ["enabledProviders": ["PROVIDER_UNSPECIFIED", "PHONE_SMS"], "state": "ENABLED"])
            let read = try await session.v2(.get, "tenants/\(tenant["tenantId"]?.stringValue ?? "")")
            #expect(read.json == tenant)
        }
    }

    @Test func listPagesByTenantId() async throws {
        try await AuthTestClient().run { session in
            let first = try await session.createTenant()
            let second = try await session.createTenant()
            let ids = [first, second].compactMap { $0["tenantId"]?.stringValue }.sorted()
            let all = try await session.v2(.get, "tenants")
            #expect(all.json["tenants"]?.arrayValue?.compactMap { $0["tenantId"]?.stringValue } == ids)
            #expect(all.json["nextPageToken"] == nil)
            let page = try await session.v2(.get, "tenants?pageSize=1")
            #expect(page.json["tenants"]?.arrayValue?.map { $0["tenantId"] } == [.string(ids[0])])
            #expect(page.json["nextPageToken"] == .string(ids[0]))
            let rest = try await session.v2(.get, "tenants?pageSize=1&pageToken=\(ids[0])")
            #expect(rest.json["tenants"]?.arrayValue?.map { $0["tenantId"] } == [.string(ids[1])])
            #expect(rest.json["nextPageToken"] == .string(ids[1]))
            let end = try await session.v2(.get, "tenants?pageToken=\(ids[1])")
            #expect(end.json == ["tenants": []])
        }
    }

    @Test func patchWithMaskChangesOnlyMaskedFields() async throws {
        try await AuthTestClient().run { session in
            let id = try await session.createTenant(["displayName": "Old", "allowPasswordSignup": true])["tenantId"]
            let reply = try await session.v2(
                .patch, "tenants/\(id?.stringValue ?? "")?updateMask=displayName,enableEmailLinkSignin",
                ["displayName": "New", "enableEmailLinkSignin": true, "allowPasswordSignup": false])
            #expect(reply.json["displayName"] == "New")
            #expect(reply.json["enableEmailLinkSignin"] == true)
            #expect(reply.json["allowPasswordSignup"] == true)
        }
    }

    @Test func maskSkipsAbsentAndPrimitivePaths() async throws {
        try await AuthTestClient().run { session in
            let tenant = try await session.createTenant([
                "displayName": "display", "mfaConfig": ["enabledProviders": ["PHONE_SMS"], "state": "ENABLED"],
            ])
            let path = "tenants/\(tenant["tenantId"]?.stringValue ?? "")"
            let reply = try await session.v2(
                .patch, "\(path)?updateMask=displayName.0,mfaConfig.enabledProviders.x,disableAuth",
                ["displayName": "unused", "mfaConfig": ["enabledProviders": []]])
            #expect(reply.json == tenant)
        }
    }

    @Test func patchWithoutMaskReplacesWithDefaults() async throws {
        try await AuthTestClient().run { session in
            let tenant = try await session.createTenant(["displayName": "display", "allowPasswordSignup": true])
            let reply = try await session.v2(.patch, "tenants/\(tenant["tenantId"]?.stringValue ?? "")", [:])
            #expect(reply.json["displayName"] == nil)
            #expect(reply.json["allowPasswordSignup"] == false)
            #expect(reply.json["mfaConfig"] == ["state": "DISABLED", "enabledProviders": []])
        }
    }

    @Test func deleteDropsTheTenantAndItsUsers() async throws {
        try await AuthTestClient().run { session in
            let id = try await session.createTenant(["allowPasswordSignup": true])["tenantId"]?.stringValue ?? ""
            let signUp = try await session.call(
                "accounts:signUp", ["email": "t@example.com", "password": "password1", "tenantId": .string(id)])
            #expect(signUp.status == 200, "\(signUp.json)")
            let deleted = try await session.v2(.delete, "tenants/\(id)")
            #expect(deleted.status == 200)
            #expect(deleted.json == [:])
            #expect(try await session.v2(.get, "tenants").json == ["tenants": []])
            #expect(try await session.listUsers(tenant: id).localIds.isEmpty)
        }
    }

    /// As in the official emulator, naming an unknown tenant creates it with everything enabled.
    @Test func unknownTenantIsCreatedImplicitly() async throws {
        try await AuthTestClient().run { session in
            let reply = try await session.v2(.get, "tenants/tenant-id")
            #expect(reply.status == 200)
            #expect(reply.json["name"] == "projects/demo-test/tenants/tenant-id")
            #expect(reply.json["allowPasswordSignup"] == true)
            #expect(reply.json["mfaConfig"]?["state"] == "ENABLED")
            #expect(try await session.v2(.get, "tenants").json["tenants"]?.arrayValue?.count == 1)
        }
    }

    @Test func tenantUsersAreIsolatedFromTheProject() async throws {
        try await AuthTestClient().run { session in
            let id = try await session.createTenant(["allowPasswordSignup": true])["tenantId"]?.stringValue ?? ""
            let signUp = try await session.call(
                "accounts:signUp", ["email": "t@example.com", "password": "password1", "tenantId": .string(id)])
            #expect(claims(of: signUp.json["idToken"])["firebase"]?["tenant"] == .string(id))
            #expect(try await session.listUsers().localIds.isEmpty)
            let tenantUsers = try await session.listUsers(tenant: id)
            #expect(tenantUsers.localIds == [signUp.json["localId"]?.stringValue ?? ""])
            #expect(tenantUsers.json["users"]?.arrayValue?.first?["tenantId"] == .string(id))
            let projectSignIn = try await session.call(
                "accounts:signInWithPassword", ["email": "t@example.com", "password": "password1"])
            #expect(projectSignIn.errorMessage == "EMAIL_NOT_FOUND")
        }
    }

    @Test func tenantSettingsAreEnforced() async throws {
        try await AuthTestClient().run { session in
            let id = try await session.createTenant()["tenantId"] ?? nil
            let password = try await session.call(
                "accounts:signUp", ["email": "t@example.com", "password": "password1", "tenantId": id])
            #expect(password.errorMessage == "OPERATION_NOT_ALLOWED")
            let anonymous = try await session.call("accounts:signUp", ["tenantId": id])
            #expect(anonymous.errorMessage == "ADMIN_ONLY_OPERATION")
            let disabled = try await session.createTenant(["disableAuth": true])["tenantId"]?.stringValue ?? ""
            #expect(try await session.listUsers(tenant: disabled).errorMessage == "PROJECT_DISABLED")
        }
    }

    @Test func tenantManagementNeedsAdmin() async throws {
        try await AuthTestClient().run { session in
            let reply = try await session.request(
                .get, "/identitytoolkit.googleapis.com/v2/projects/demo-test/tenants?key=fake")
            #expect(reply.status == 401)
        }
    }
}

/// `v2/projects/{p}/config`.
extension TenantTests {
    @Suite struct ProjectConfig {
        @Test func defaultConfig() async throws {
            try await AuthTestClient().run { session in
                let config = try await session.v2(.get, "config").json
                #expect(config["signIn"] == ["allowDuplicateEmails": false])
                #expect(config["blockingFunctions"] == [:])
                #expect(config["emailPrivacyConfig"] == ["enableImprovedEmailPrivacy": false])
            }
        }

        @Test func maskedUpdateThenFullReset() async throws {
            try await AuthTestClient().run { session in
                let updated = try await session.v2(
                    .patch, "config?updateMask=signIn.allowDuplicateEmails", ["signIn": ["allowDuplicateEmails": true]])
                #expect(updated.json["signIn"] == ["allowDuplicateEmails": true])
                #expect(try await session.v2(.get, "config").json["signIn"] == ["allowDuplicateEmails": true])
                let emulatorView = try await session.request(.get, "/emulator/v1/projects/demo-test/config")
                #expect(emulatorView.json["signIn"] == ["allowDuplicateEmails": true])
                let reset = try await session.v2(.patch, "config", [:])
                #expect(reset.json["signIn"] == ["allowDuplicateEmails": false])
            }
        }

        static let invalidTriggers: [JSONValue] = [
            ["invalidEventTrigger": ["functionUri": "http://localhost"]],
            ["beforeCreate": ["functionUri": "invalidUri"]],
        ]

        @Test(arguments: invalidTriggers)
        func rejectsInvalidBlockingFunctions(triggers: JSONValue) async throws {
            try await AuthTestClient().run { session in
                let reply = try await session.v2(.patch, "config", ["blockingFunctions": ["triggers": triggers]])
                #expect(reply.status == 400)
                #expect(reply.errorMessage?.hasPrefix("INVALID_BLOCKING_FUNCTION") == true)
            }
        }

        @Test func tenantScopedConfigIsRejected() async throws {
            try await AuthTestClient().run { session in
                let reply = try await session.v2(.patch, "config", ["tenantId": "t1"])
                #expect(reply.errorMessage == "((Can only update top-level configurations on agent projects.))")
            }
        }
    }
}
