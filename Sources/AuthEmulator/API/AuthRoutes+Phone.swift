import EmulatorCore
import HTTPTypes

extension AuthRoutes {
    /// Phone sign-in: `accounts:sendVerificationCode`, `accounts:signInWithPhoneNumber`.
    static var phoneRoutes: [AuthRoute] { [] }
}
