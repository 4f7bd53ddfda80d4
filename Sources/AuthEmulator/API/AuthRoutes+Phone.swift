import EmulatorCore
import HTTPTypes

extension AuthRoutes {
    /// Phone sign-in: `accounts:sendVerificationCode`, `accounts:signInWithPhoneNumber`.
    static var phoneRoutes: [AuthRoute] {
        [
            AuthRoute(
                .post, "\(identityToolkit)/v1/accounts:sendVerificationCode", .apiKey,
                .realm(AuthOperations.sendVerificationCode)),
            AuthRoute(
                .post, "\(identityToolkit)/v1/accounts:signInWithPhoneNumber", .apiKey,
                .realm(AuthOperations.signInWithPhoneNumber)),
        ]
    }
}
