import EmulatorCore
import HTTPTypes

extension AuthRoutes {
    /// Second factors: `v2/accounts/mfaEnrollment:*` and `v2/accounts/mfaSignIn:*` (SMS and TOTP). Client
    /// calls only; tenant calls name their tenant in the body, as the official emulator has no tenant paths here.
    static var mfaRoutes: [AuthRoute] {
        let operations: [(String, AuthRoute.RealmOperation)] = [
            ("mfaEnrollment:start", AuthOperations.mfaEnrollmentStart),
            ("mfaEnrollment:finalize", AuthOperations.mfaEnrollmentFinalize),
            ("mfaEnrollment:withdraw", AuthOperations.mfaEnrollmentWithdraw),
            ("mfaSignIn:start", AuthOperations.mfaSignInStart),
            ("mfaSignIn:finalize", AuthOperations.mfaSignInFinalize),
        ]
        return operations.map { name, operation in
            AuthRoute(.post, "\(identityToolkit)/v2/accounts/\(name)", .apiKey, .realm(operation))
        }
    }
}
