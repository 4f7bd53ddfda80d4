import EmulatorCore
import EmulatorHTTP
import Foundation
import HTTPTypes
import Hummingbird

/// Emulator-only pages: `GET /emulator/action`, where the links of email actions land. It applies the code
/// and answers with JSON (or redirects to `continueUrl`), as the official emulator does.
enum AuthPages {
    /// A response if `segments` name one of the emulator's pages, else `nil`.
    static func response(for request: Request, segments: [String], api: AuthAPI) async throws -> Response? {
        guard request.method == .get, segments == ["emulator", "action"] else { return nil }
        let query = request.queryFields
        guard let apiKey = query["apiKey"], !apiKey.isEmpty else {
            return failure(
                "missing apiKey query parameter",
                "Please modify the URL to specify an apiKey, such as ...&apiKey=YOUR_API_KEY")
        }
        guard let code = query["oobCode"], !code.isEmpty else {
            return failure(
                "missing oobCode query parameter",
                "Please modify the URL to specify an oobCode, such as ...&oobCode=YOUR_OOB_CODE")
        }
        let continueURL = query["continueUrl"]
        let call = AuthCall(
            body: RequestBody(["oobCode": .string(code)]), query: query, isAdmin: false,
            projectID: api.defaultProjectID, tenantID: query["tenantId"], parameters: [:], now: api.clock.now(),
            origin: AuthAPI.origin(of: request))
        switch query["mode"] ?? "" {
        case "resetPassword":
            return try await resetPassword(call: call, code: code, query: query, api: api)
        case "verifyEmail":
            return try await applyCode(
                call: call, api: api, continueURL: continueURL, success: "The email has been successfully verified.",
                field: "email", expired: "Your request to verify your email has expired or the link has already been used.",
                retry: "Try verifying your email again.")
        case "verifyAndChangeEmail":
            return try await applyCode(
                call: call, api: api, continueURL: continueURL, success: "The email has been successfully changed.",
                field: "newEmail",
                expired: "Your request to change your email has expired or the link has already been used.",
                retry: "Try changing your email again.")
        case "recoverEmail":
            return try await applyCode(
                call: call, api: api, continueURL: nil, success: "The email has been successfully reset.",
                field: "email", expired: "Your request to revert your email has expired or the link has already been used.",
                retry: "If you're trying to test the reverting email flow, try changing the email again to generate a new link.")
        case "signIn":
            guard let continueURL, var components = URLComponents(string: continueURL) else {
                return failure(
                    "Missing continueUrl query parameter", "To sign in, append &continueUrl=YOUR_APP_URL to the link.")
            }
            var items = (components.queryItems ?? []).filter { item in !query.pairs.contains { $0.name == item.name } }
            items += query.pairs.filter { $0.name != "continueUrl" }.map { URLQueryItem(name: $0.name, value: $0.value) }
            components.queryItems = items
            return redirect(to: components.string ?? continueURL)
        default:
            return .json(["authEmulator": ["error": "Invalid mode"]], status: 400)
        }
    }

    private static func resetPassword(call: AuthCall, code: String, query: FormFields, api: AuthAPI) async throws
        -> Response
    {
        let oob = try await api.store.withRealm(projectID: call.projectID, tenantID: call.tenantID) {
            (realm: inout Realm) throws(APIError) -> OOBRecord? in realm.pool.oobCodes[code]
        }
        guard let oob, oob.requestType == "PASSWORD_RESET" else {
            return failure(
                "Your request to reset your password has expired or the link has already been used.",
                "Try resetting your password again.")
        }
        let template = "\(oob.oobLink)&newPassword=NEW_PASSWORD_HERE"
        guard let password = query["newPassword"], !password.isEmpty else {
            return .json(
                [
                    "authEmulator": [
                        "error": "missing newPassword query parameter",
                        "instructions": .string("To reset the password for \(oob.email), send an HTTP GET request to the following URL."),
                        "instructions2": "You may use a web browser or any HTTP client, such as curl.",
                        "urlTemplate": .string(template),
                    ]
                ], status: 400)
        }
        guard password != "NEW_PASSWORD_HERE" else {
            return .json(
                [
                    "authEmulator": [
                        "error": "newPassword must be something other than 'NEW_PASSWORD_HERE'",
                        "instructions": "The string 'NEW_PASSWORD_HERE' is just a placeholder.",
                        "instructions2": "Please change the URL to specify a new password instead.",
                        "urlTemplate": .string(template),
                    ]
                ], status: 400)
        }
        var reset = call
        reset.body = RequestBody(["oobCode": .string(code), "newPassword": .string(password)])
        let result = try await api.run(.realm(AuthOperations.resetPassword), call: reset)
        if let continueURL = query["continueUrl"] { return redirect(to: continueURL) }
        return .json(
            ["authEmulator": ["success": "The password has been successfully updated.", "email": result["email"] ?? .null]])
    }

    private static func applyCode(
        call: AuthCall, api: AuthAPI, continueURL: String?, success: String, field: String, expired: String,
        retry: String
    ) async throws -> Response {
        let outcome: Result<JSONValue, APIError>
        do {
            outcome = .success(try await api.run(.realm(AuthOperations.update), call: call))
        } catch {
            outcome = .failure(error)
        }
        let result: JSONValue
        switch outcome {
        case .success(let value): result = value
        case .failure(let error) where error.message == "INVALID_OOB_CODE" || error.code == 501:
            return failure(expired, retry)
        case .failure(let error): throw error
        }
        if let continueURL { return redirect(to: continueURL) }
        return .json(["authEmulator": ["success": .string(success), .init(stringLiteral: field): result[field] ?? .null]])
    }

    private static func failure(_ error: String, _ instructions: String) -> Response {
        .json(["authEmulator": ["error": .string(error), "instructions": .string(instructions)]], status: 400)
    }

    private static func redirect(to location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location])
    }
}
