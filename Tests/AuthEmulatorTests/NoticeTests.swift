import AuthEmulator
import EmulatorCore
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

@Suite struct NoticeTests {
    @Test func emailLinksAndSMSCodesAreReported() async throws {
        let messages = Mutex<[String]>([])
        let emulator = try AuthEmulator(projectID: "demo-notice", port: 0) { message in
            messages.withLock { $0.append(message) }
        }
        let client = AuthTestClient(emulator: emulator)
        try await client.run { session in
            _ = try await session.signUp(email: "n@example.com")
            _ = try await session.call("accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "n@example.com"])
            _ = try await session.call("accounts:sendVerificationCode", ["phoneNumber": "+15555550123"])
        }
        let seen = messages.withLock { $0 }
        #expect(seen.count == 2)
        #expect(seen.first?.hasPrefix("To reset the password for n@example.com, follow this link: http://") == true)
        #expect(seen.first?.hasSuffix("&newPassword=NEW_PASSWORD_HERE") == true)
        #expect(seen.last?.hasPrefix("To verify the phone number +15555550123, use the code ") == true)
    }
}
