import HTTPTypes
import EmulatorCore

/// The Auth API's route table: every endpoint the emulator serves, by production path.
enum AuthRoutes {
    static let identityToolkit = "identitytoolkit.googleapis.com"

    /// Client (`?key=`) and admin account endpoints under `v1/accounts:*`, and their admin twins under
    /// `v1/projects/{p}[/tenants/{t}]/accounts:*`.
    static var accountRoutes: [AuthRoute] {
        let operations: [(String, Access, AuthRoute.RealmOperation)] = [
            ("signUp", .apiKey, AuthOperations.signUp),
            ("signInWithPassword", .apiKey, AuthOperations.signInWithPassword),
            ("signInWithCustomToken", .apiKey, AuthOperations.signInWithCustomToken),
            ("signInWithEmailLink", .apiKey, AuthOperations.signInWithEmailLink),
            ("signInWithIdp", .apiKey, AuthOperations.signInWithIdp),
            ("sendOobCode", .apiKey, AuthOperations.sendOOBCode),
            ("resetPassword", .apiKey, AuthOperations.resetPassword),
            ("createAuthUri", .apiKey, AuthOperations.createAuthURI),
            ("lookup", .apiKey, AuthOperations.lookup),
            ("update", .apiKey, AuthOperations.update),
            ("delete", .apiKey, AuthOperations.deleteAccount),
        ]
        let adminOperations: [(String, AuthRoute.RealmOperation)] = [
            ("lookup", AuthOperations.lookup),
            ("update", AuthOperations.update),
            ("delete", AuthOperations.deleteAccount),
            ("sendOobCode", AuthOperations.sendOOBCode),
        ]
        var routes: [AuthRoute] = []
        for (name, access, operation) in operations {
            routes.append(AuthRoute(.post, "\(identityToolkit)/v1/accounts:\(name)", access, .realm(operation)))
        }
        for prefix in projectPrefixes {
            routes.append(AuthRoute(.post, "\(prefix)/accounts", .admin, .realm(AuthOperations.signUp)))
            for (name, operation) in adminOperations {
                routes.append(AuthRoute(.post, "\(prefix)/accounts:\(name)", .admin, .realm(operation)))
            }
        }
        return routes
    }

    /// `v1/projects/{p}` and `v1/projects/{p}/tenants/{t}`.
    static let projectPrefixes = [
        "\(identityToolkit)/v1/projects/{targetProjectId}",
        "\(identityToolkit)/v1/projects/{targetProjectId}/tenants/{tenantId}",
    ]

    /// Emulator-only endpoints under `/emulator/v1/projects/{p}`.
    static var emulatorRoutes: [AuthRoute] {
        var routes: [AuthRoute] = []
        for prefix in ["emulator/v1/projects/{targetProjectId}", "emulator/v1/projects/{targetProjectId}/tenants/{tenantId}"] {
            routes += [
                AuthRoute(.delete, "\(prefix)/accounts", .open, .realm(AuthOperations.deleteAllAccounts)),
                AuthRoute(.get, "\(prefix)/oobCodes", .open, .realm(AuthOperations.listOOBCodes)),
                AuthRoute(.get, "\(prefix)/verificationCodes", .open, .realm(AuthOperations.listVerificationCodes)),
            ]
        }
        routes += [
            AuthRoute(.get, "emulator/v1/projects/{targetProjectId}/config", .open, .project(AuthOperations.emulatorConfig)),
            AuthRoute(
                .patch, "emulator/v1/projects/{targetProjectId}/config", .open,
                .project(AuthOperations.updateEmulatorConfig)),
        ]
        return routes
    }

    /// Public config endpoints clients read before signing in.
    static var configRoutes: [AuthRoute] {
        [
            AuthRoute(.get, "\(identityToolkit)/v1/projects", .apiKey, .constant(AuthOperations.projectConfig)),
            AuthRoute(.get, "\(identityToolkit)/v1/recaptchaParams", .apiKey, .constant(AuthOperations.recaptchaParams)),
            AuthRoute(.get, "\(identityToolkit)/v2/recaptchaConfig", .apiKey, .constant(AuthOperations.recaptchaConfig)),
            AuthRoute(.get, "\(identityToolkit)/v2/passwordPolicy", .apiKey, .constant(AuthOperations.passwordPolicy)),
            AuthRoute(.post, "securetoken.googleapis.com/v1/token", .apiKey, .realm(AuthOperations.grantToken)),
        ]
    }

    static var all: [AuthRoute] {
        accountRoutes + emulatorRoutes + configRoutes + phoneRoutes + mfaRoutes + adminRoutes + tenantRoutes
    }
}
