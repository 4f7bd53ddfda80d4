import EmulatorCore
import HTTPTypes

extension AuthRoutes {
    /// Project config and tenants: `v2/projects/{p}/config`, `v2/projects/{p}/tenants[/{t}]`.
    static var tenantRoutes: [AuthRoute] {
        let project = "\(identityToolkit)/v2/projects/{targetProjectId}"
        return [
            AuthRoute(.get, "\(project)/config", .admin, .project(AuthOperations.getConfig)),
            AuthRoute(.patch, "\(project)/config", .admin, .project(AuthOperations.updateConfig)),
            AuthRoute(.post, "\(project)/tenants", .admin, .project(AuthOperations.createTenant)),
            AuthRoute(.get, "\(project)/tenants", .admin, .project(AuthOperations.listTenants)),
            AuthRoute(.get, "\(project)/tenants/{tenantId}", .admin, .project(AuthOperations.getTenant)),
            AuthRoute(.patch, "\(project)/tenants/{tenantId}", .admin, .project(AuthOperations.updateTenant)),
            AuthRoute(.delete, "\(project)/tenants/{tenantId}", .admin, .project(AuthOperations.deleteTenant)),
        ]
    }
}
