import EmulatorCore
import HTTPTypes

extension AuthRoutes {
    /// Project config and tenants: `v2/projects/{p}/config`, `v2/projects/{p}/tenants[/{t}]`.
    static var tenantRoutes: [AuthRoute] { [] }
}
