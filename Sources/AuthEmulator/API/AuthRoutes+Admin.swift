import EmulatorCore
import HTTPTypes

extension AuthRoutes {
    /// Admin batch endpoints: `accounts:batchCreate|batchGet|batchDelete|query`, `:queryAccounts`,
    /// `:createSessionCookie`.
    static var adminRoutes: [AuthRoute] { [] }
}
