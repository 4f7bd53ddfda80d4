import EmulatorCore
import HTTPTypes

extension AuthRoutes {
    /// Second factors: `v2/accounts/mfaEnrollment:*` and `v2/accounts/mfaSignIn:*` (SMS and TOTP).
    static var mfaRoutes: [AuthRoute] { [] }
}
