import Crypto
import EmulatorCore
import EmulatorHTTP
import Foundation

extension AuthOperations {
    /// The most localIds one `accounts:batchDelete` takes.
    static let batchDeleteLimit = 1000

    /// `accounts:batchCreate` (Admin `importUsers`, legacy `uploadAccount`): writes each user in full. Request-wide
    /// problems fail the call; a bad user is reported in `error[{index, message}]` and the others are still written.
    ///
    /// Emulator extension: a user may carry its own `passwordHashConfig` (`hashAlgorithm`, `signerKey`, `rounds`,
    /// `passwordHashOrder`) and TOTP factors with their `totpSecret`, as a Hearth export writes them, so imported
    /// hashes and TOTP factors keep working after an export and import.
    static func batchCreate(_ realm: inout Realm, _ call: AuthCall) throws(APIError) -> JSONValue {
        let body = call.body
        let entries = try body.objects("users") ?? []
        try require(!entries.isEmpty, "MISSING_USER_ACCOUNT")
        let options = ImportOptions(
            sanityCheck: try body.bool("sanityCheck") ?? false, allowOverwrite: try body.bool("allowOverwrite") ?? false)
        try checkDuplicates(in: entries, options: options, realm: realm)
        let hashConfig = try ImportedPasswordHash(body)
        var errors: [JSONValue] = []
        for (index, entry) in entries.enumerated() {
            do throws(APIError) {
                var user = try importedUser(entry, options: options, realm: realm, now: call.now)
                if user.passwordHash != nil {
                    user.passwordHashConfig = hashConfig
                    if let own = try entry.object("passwordHashConfig") {
                        user.passwordHashConfig = try ImportedPasswordHash(own)
                    }
                }
                realm.pool.save(user)
            } catch {
                // Schema errors fail the whole request, as the official emulator validates before it imports.
                guard error.status == nil else { throw error }
                errors.append(["index": .int(Int64(index)), "message": .string(importMessage(for: error.message))])
            }
        }
        return response("UploadAccountResponse", ["error": .array(errors)])
    }

    /// `sanityCheck` and `allowOverwrite` of an import.
    private struct ImportOptions {
        var sanityCheck: Bool
        var allowOverwrite: Bool
    }

    /// Duplicates within the payload that fail the whole import.
    private static func checkDuplicates(
        in entries: [RequestBody], options: ImportOptions, realm: Realm
    ) throws(APIError) {
        if options.sanityCheck {
            if realm.settings.oneAccountPerEmail {
                var emails: Set<String> = []
                for entry in entries {
                    guard let email = try entry.string("email"), !email.isEmpty else { continue }
                    try require(emails.insert(email).inserted, "DUPLICATE_EMAIL : \(email)")
                }
            }
            var identities: Set<String> = []
            for entry in entries {
                for info in try entry.objects("providerUserInfo") ?? [] {
                    let providerId = try info.string("providerId") ?? "undefined"
                    let rawId = try info.string("rawId") ?? "undefined"
                    try require(
                        identities.insert("\(providerId):\(rawId)").inserted,
                        "DUPLICATE_RAW_ID : Provider id(\(providerId)), Raw id(\(rawId))")
                }
            }
        }
        if !options.allowOverwrite {
            var localIds: Set<String> = []
            for entry in entries {
                let localId = try entry.string("localId") ?? ""
                try require(localIds.insert(localId).inserted, "DUPLICATE_LOCAL_ID : \(localId)")
            }
        }
    }

    /// One imported user; a 400 Auth error is that user's entry in `error`.
    private static func importedUser(
        _ entry: RequestBody, options: ImportOptions, realm: Realm, now: Date
    ) throws(APIError) -> UserRecord {
        guard let localId = try entry.string("localId"), !localId.isEmpty else { throw .auth("localId is missing") }
        var user = UserRecord(localId: localId)
        user.displayName = try entry.string("displayName")
        user.photoUrl = try entry.string("photoUrl")
        user.lastLoginAt = try entry.coercedString("lastLoginAt")
        if let tenant = try entry.string("tenantId"), !tenant.isEmpty {
            try require(tenant == realm.tenantID, "Tenant id in userInfo does not match the tenant id in request.")
        }
        user.tenantId = realm.tenantID
        if let hash = try entry.string("passwordHash"), !hash.isEmpty {
            user.passwordHash = hash
            user.salt = try entry.string("salt")
            user.passwordUpdatedAt = now.millisecondsSince1970
        } else if let password = try entry.string("rawPassword"), !password.isEmpty {
            setPassword(password, on: &user, now: now)
        }
        if let claims = try entry.string("customAttributes"), !claims.isEmpty {
            try validateCustomAttributes(claims)
            user.customAttributes = claims
        }
        if let providers = try entry.objects("providerUserInfo") {
            user.providerUserInfo = try importedProviders(providers, localId: localId, realm: realm)
        }
        if let phone = try entry.string("phoneNumber"), !phone.isEmpty {
            try require(isValidPhoneNumber(phone), "phone number format is invalid")
            user.phoneNumber = phone
        }
        user.validSince = String(now.secondsSince1970)
        let createdAt = try entry.coercedString("createdAt")
        user.createdAt = createdAt.flatMap { Double($0) == nil ? nil : $0 } ?? String(now.millisecondsSince1970)
        if let email = try entry.string("email"), !email.isEmpty {
            try require(isValidEmail(email), "email is invalid")
            let canonical = canonicalEmail(email)
            if let owner = realm.pool.user(email: canonical), owner.localId != localId {
                throw .auth(
                    options.sanityCheck && realm.settings.oneAccountPerEmail
                        ? "email exists in other account in database"
                        : "((Auth Emulator does not support importing duplicate email: \(email)))")
            }
            user.email = canonical
        }
        user.emailVerified = try entry.bool("emailVerified") ?? false
        user.disabled = try entry.bool("disabled") ?? false
        if let factors = try entry.objects("mfaInfo"), !factors.isEmpty {
            user.mfaInfo = try importedFactors(factors, of: user, now: now)
        }
        if realm.pool[localId: localId] != nil {
            try require(options.allowOverwrite, "localId belongs to an existing account - can not overwrite.")
        }
        return user
    }

    /// Linked identities of an imported user; `password` and `phone` are derived from the record, not imported.
    private static func importedProviders(
        _ infos: [RequestBody], localId: String, realm: Realm
    ) throws(APIError) -> [ProviderUserInfo] {
        var providers: [ProviderUserInfo] = []
        for info in infos {
            let providerId = try info.string("providerId") ?? ""
            let rawId = try info.string("rawId") ?? ""
            let federatedId = try info.string("federatedId")
            if providerId == Provider.password || providerId == Provider.phone { continue }
            guard !providerId.isEmpty, !rawId.isEmpty else {
                guard let federatedId, !federatedId.isEmpty else {
                    throw .auth("federatedId or (providerId & rawId) is required")
                }
                throw .auth(
                    "((Parsing federatedId is not implemented in Auth Emulator; please specify providerId AND rawId as a workaround.))"
                )
            }
            if let owner = realm.pool.user(providerId: providerId, rawId: rawId) {
                try require(owner.localId == localId, "raw id exists in other account in database")
            }
            providers.append(
                ProviderUserInfo(
                    providerId: providerId, rawId: rawId, federatedId: federatedId, email: try info.string("email"),
                    displayName: try info.string("displayName"), photoUrl: try info.string("photoUrl"),
                    phoneNumber: try info.string("phoneNumber"), screenName: try info.string("screenName")))
        }
        return providers
    }

    /// Imported second factors, on a user with a verified email: SMS, and (emulator extension) TOTP factors that
    /// carry their base32 `totpSecret`, as a Hearth export writes them.
    private static func importedFactors(
        _ factors: [RequestBody], of user: UserRecord, now: Date
    ) throws(APIError) -> [MFAEnrollment] {
        try require(user.email != nil, "Second factor account requires email to be presented.")
        try require(user.emailVerified == true, "Second factor account requires email to be verified.")
        var ids: Set<String> = []
        for factor in factors {
            guard let id = try factor.string("mfaEnrollmentId"), !id.isEmpty else { continue }
            try require(ids.insert(id).inserted, "Enrollment id already exists.")
        }
        var enrollments: [MFAEnrollment] = []
        for factor in factors {
            var id = try factor.string("mfaEnrollmentId") ?? ""
            if id.isEmpty {
                repeat { id = RandomID.make(length: 28) } while ids.contains(id)
                ids.insert(id)
            }
            var enrollment = MFAEnrollment(
                mfaEnrollmentId: id, displayName: try factor.string("displayName"),
                enrolledAt: try factor.string("enrolledAt") ?? now.iso8601WithMilliseconds)
            if try factor.object("totpInfo") != nil, let secret = try factor.string("totpSecret"),
                TOTP(base32: secret) != nil
            {
                enrollment.totpInfo = MFAEnrollment.TOTPInfo()
                enrollment.totpSecret = secret
            } else {
                guard let phone = try factor.string("phoneInfo"), !phone.isEmpty else {
                    throw .auth("Second factor not supported.")
                }
                try require(isValidPhoneNumber(phone), "Phone number format is invalid")
                enrollment.phoneInfo = phone
            }
            enrollments.append(enrollment)
        }
        return enrollments
    }

    /// The friendlier per-user wording production uses for custom-claim errors.
    private static func importMessage(for message: String) -> String {
        if message == "INVALID_CLAIMS" { return "Invalid custom claims provided." }
        if message == "CLAIMS_TOO_LARGE" { return "Custom claims provided are too large." }
        if message.hasPrefix("FORBIDDEN_CLAIM") { return "Custom claims provided include a reserved claim." }
        return message
    }

    /// `GET accounts:batchGet` (Admin `listUsers`; legacy `downloadAccount` sends the same fields in its body): users
    /// by ascending localId after `nextPageToken`, `maxResults` (default 20, at most 1000; negative: all) at a time.
    /// A full page always carries a `nextPageToken`; `users` is omitted when empty.
    static func batchGet(_ realm: inout Realm, _ call: AuthCall) throws(APIError) -> JSONValue {
        func parameter(_ name: String) -> String? { call.query[name] ?? call.body.fields[name]?.primitiveString }
        let size = try pageSize(parameter("maxResults"), name: "maxResults")
        let token = parameter("nextPageToken").flatMap { $0.isEmpty ? nil : $0 }
        let (users, next) = page(realm.pool.sortedUsers(after: token), size: size, id: \.localId)
        return response(
            "DownloadAccountResponse", ["users": users.isEmpty ? nil : .array(users.map(\.json)), "nextPageToken": next.json])
    }

    /// A page size as the official emulator reads `maxResults` / `pageSize`: floored, 0 or absent means 20, capped at
    /// 1000; a negative size means everything.
    static func pageSize(_ text: String?, name: String) throws(APIError) -> Int {
        guard let text, !text.isEmpty else { return 20 }
        guard let value = Double(text), value.isFinite else { throw .invalidPayload("/\(name) must be integer") }
        let size = Int(max(min(value, 1_000_000), -1).rounded(.down))
        return size == 0 ? 20 : min(size, 1000)
    }

    /// The first `size` of `items` (all if `size` is negative) and, when the page is full, the token after it.
    static func page<Item>(_ items: [Item], size: Int, id: (Item) -> String) -> (items: [Item], next: String?) {
        guard size > 0, items.count >= size else { return (items, nil) }
        let page = Array(items.prefix(size))
        return (page, page.last.map(id))
    }

    /// `accounts:batchDelete` (Admin `deleteUsers`): deletes disabled users, or any with `force`; unknown ids are
    /// skipped. Replies `{}` or `{"errors": [{index, localId, message}]}`.
    static func batchDelete(_ realm: inout Realm, _ call: AuthCall) throws(APIError) -> JSONValue {
        let localIds = try call.body.strings("localIds") ?? []
        try require((1...batchDeleteLimit).contains(localIds.count), "LOCAL_ID_LIST_EXCEEDS_LIMIT")
        let force = try call.body.bool("force") ?? false
        var errors: [JSONValue] = []
        for (index, localId) in localIds.enumerated() {
            guard let user = realm.pool[localId: localId] else { continue }
            guard force || user.disabled == true else {
                errors.append([
                    "index": .int(Int64(index)), "localId": .string(localId),
                    "message": "NOT_DISABLED : Disable the account before batch deletion.",
                ])
                continue
            }
            realm.pool.delete(localId: localId)
        }
        return errors.isEmpty ? [:] : ["errors": .array(errors)]
    }
}

extension AuthOperations {
    /// The most users one `accounts:query` returns.
    static let queryLimit: Int64 = 500

    /// `accounts:query` and `projects/{p}:queryAccounts` (Identity Platform `QueryUserInfo`): users matching the
    /// first `expression` (`userId`, `email`, `phoneNumber`), sorted by `sortBy`/`order`, `offset` skipped, at most
    /// `limit` (≤ 500) returned; `returnUserInfo: false` returns only the count. `recordsCount` is a string.
    /// Emulator extension: the official emulator answers 501 to `expression`, `limit`, `offset` and sort fields other
    /// than `USER_ID`, and returns every user when no `limit` is given (kept here).
    static func queryAccounts(_ realm: inout Realm, _ call: AuthCall) throws(APIError) -> JSONValue {
        let body = call.body
        var users = realm.pool.sortedUsers()
        if let expression = try body.objects("expression")?.first {
            let localId = try expression.string("userId")
            let email = try expression.string("email").map(canonicalEmail)
            let phone = try expression.string("phoneNumber")
            users.removeAll { user in
                (localId != nil && user.localId != localId) || (email != nil && user.email != email)
                    || (phone != nil && user.phoneNumber != phone)
            }
        }
        if try body.bool("returnUserInfo") == false { return ["recordsCount": .string(String(users.count))] }
        users = try sorted(users, by: body.string("sortBy"), order: body.string("order"))
        let offset = Int(clamping: max(try body.int64("offset") ?? 0, 0))
        let limit = try body.int64("limit") ?? 0
        let selected = users.dropFirst(offset).prefix(limit > 0 ? Int(min(limit, queryLimit)) : users.count)
        return ["recordsCount": .string(String(selected.count)), "userInfo": .array(selected.map(\.json))]
    }

    /// `users` (sorted by localId) in `SortByField` / `Order`; ties keep localId order.
    private static func sorted(_ users: [UserRecord], by field: String?, order: String?) throws(APIError)
        -> [UserRecord]
    {
        // (timestamp, text): string fields compare as text, timestamps (milliseconds) as numbers.
        let key: (UserRecord) -> (Int64, String)
        switch field ?? "SORT_BY_FIELD_UNSPECIFIED" {
        case "SORT_BY_FIELD_UNSPECIFIED", "USER_ID": key = { (0, $0.localId) }
        case "NAME": key = { (0, $0.displayName ?? "") }
        case "USER_EMAIL": key = { (0, $0.email ?? "") }
        case "CREATED_AT": key = { (Int64($0.createdAt ?? "") ?? 0, "") }
        case "LAST_LOGIN_AT": key = { (Int64($0.lastLoginAt ?? "") ?? 0, "") }
        default: throw .invalidPayload("/sortBy must be equal to one of the allowed values")
        }
        let ascending = users.enumerated().sorted { lhs, rhs in
            let (left, right) = (key(lhs.element), key(rhs.element))
            return left == right ? lhs.offset < rhs.offset : left < right
        }.map(\.element)
        switch order ?? "ORDER_UNSPECIFIED" {
        case "ORDER_UNSPECIFIED", "ASC": return ascending
        case "DESC": return ascending.reversed()
        default: throw .invalidPayload("/order must be equal to one of the allowed values")
        }
    }

    /// Session cookie lifetimes production accepts, in seconds (5 minutes to 2 weeks).
    static let sessionCookieDurations: ClosedRange<Double> = 300...1_209_600

    /// `projects/{p}[/tenants/{t}]:createSessionCookie` (Admin `createSessionCookie`): an unsigned JWT with the ID
    /// token's claims, `iss` `https://session.firebase.google.com/{aud}`, `iat` now and `exp` after `validDuration`
    /// seconds (default two weeks).
    static func createSessionCookie(_ realm: inout Realm, _ call: AuthCall) throws(APIError) -> JSONValue {
        let idToken = try call.body.requiredString("idToken", missing: "MISSING_ID_TOKEN")
        let requested = try call.body.coercedString("validDuration").flatMap(Double.init) ?? 0
        let duration = requested.isFinite && requested != 0 ? requested : sessionCookieDurations.upperBound
        try require(sessionCookieDurations.contains(duration), "INVALID_DURATION")
        var claims = try parseIDToken(idToken, realm: realm).claims
        let issuedAt = call.now.secondsSince1970
        claims["iat"] = .int(issuedAt)
        claims["exp"] = .int(issuedAt + Int64(duration))
        let audience = claims["aud"]?.stringValue ?? realm.projectID
        claims["iss"] = .string("https://session.firebase.google.com/\(audience)")
        return ["sessionCookie": .string(UnsignedJWT(payload: claims).encoded)]
    }
}

extension RequestBody {
    /// A string field that may arrive as a JSON number or boolean (the Admin SDKs send `createdAt` as a number); the
    /// official emulator's schema validator converts those to strings.
    func coercedString(_ key: String) throws(APIError) -> String? {
        guard let value = fields[key], value != .null else { return nil }
        guard let text = value.primitiveString else { throw .invalidPayload("/\(key) must be string") }
        return text
    }
}
