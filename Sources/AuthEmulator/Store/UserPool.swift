import EmulatorCore

/// The users of one project or tenant with their lookup indexes, and the pending codes issued to them.
///
/// Every change to a user goes through `save(_:)` or `delete(localId:)` so the indexes can never disagree with the
/// records, and so a `journal`, while one is kept, sees every change.
struct UserPool: Sendable {
    private(set) var users: [String: UserRecord] = [:]
    private var localIdForEmail: [String: String] = [:]
    private var localIdForPhone: [String: String] = [:]
    private var localIdForProviderRawId: [ProviderKey: String] = [:]
    private var localIdsForProviderEmail: [String: Set<String>] = [:]

    /// Out-of-band codes (email actions), by code.
    var oobCodes: [String: OOBRecord] = [:]
    /// Insertion order of `oobCodes`, for listing.
    private(set) var oobOrder: [String] = []
    /// SMS verification codes, by session info.
    var verificationCodes: [String: PhoneVerification] = [:]
    private(set) var verificationOrder: [String] = []
    /// Temporary proofs from phone sign-in conflicts, by proof.
    var temporaryProofs: [String: String] = [:]
    /// Messages for the developer (links and codes that production would send), drained by the store.
    var outbox: [String] = []
    /// The users' records before the changes made since it was started, while the store keeps one (it writes them
    /// to a data folder); `nil` otherwise.
    var journal: Journal?

    private struct ProviderKey: Hashable {
        var providerId: String
        var rawId: String
    }

    // MARK: Reading

    subscript(localId localId: String) -> UserRecord? { users[localId] }

    func user(email: String) -> UserRecord? {
        localIdForEmail[email].flatMap { users[$0] }
    }

    func user(phoneNumber: String) -> UserRecord? {
        localIdForPhone[phoneNumber].flatMap { users[$0] }
    }

    func user(providerId: String, rawId: String) -> UserRecord? {
        localIdForProviderRawId[ProviderKey(providerId: providerId, rawId: rawId)].flatMap { users[$0] }
    }

    func user(initialEmail: String) -> UserRecord? {
        users.values.first { $0.initialEmail == initialEmail }
    }

    /// Users whose own email or any linked provider's email is `email`.
    func users(emailOrProviderEmail email: String) -> [UserRecord] {
        var ids = localIdsForProviderEmail[email] ?? []
        if let id = localIdForEmail[email] { ids.insert(id) }
        return ids.sorted().compactMap { users[$0] }
    }

    var count: Int { users.count }

    /// Users sorted by localId, starting after `startAfter`.
    func sortedUsers(after startAfter: String? = nil) -> [UserRecord] {
        users.values.filter { startAfter == nil || $0.localId > startAfter! }.sorted { $0.localId < $1.localId }
    }

    // MARK: Writing

    /// A fresh 28-character localId not in use.
    func newLocalId() -> String {
        while true {
            let id = RandomID.make(length: 28)
            if users[id] == nil { return id }
        }
    }

    /// Stores `user` (insert or replace), first syncing its derived providers (`password`, `phone`), then indexes.
    mutating func save(_ user: UserRecord) {
        var user = user
        Self.syncDerivedProviders(&user)
        journal?.note(user.localId, was: users[user.localId])
        if let old = users[user.localId] { unindex(old) }
        users[user.localId] = user
        index(user)
    }

    mutating func delete(localId: String) {
        guard let old = users.removeValue(forKey: localId) else { return }
        journal?.note(localId, was: old)
        unindex(old)
    }

    /// Removes every user; pending codes stay valid, as in the official emulator.
    mutating func deleteAllUsers() {
        if journal != nil {
            for (localId, user) in users { journal?.note(localId, was: user) }
            journal?.cleared = true
        }
        users = [:]
        localIdForEmail = [:]
        localIdForPhone = [:]
        localIdForProviderRawId = [:]
        localIdsForProviderEmail = [:]
    }

    mutating func addOOB(_ record: OOBRecord) {
        oobCodes[record.oobCode] = record
        oobOrder.append(record.oobCode)
        outbox.append(record.notice)
    }

    mutating func removeOOB(_ code: String) {
        oobCodes[code] = nil
        oobOrder.removeAll { $0 == code }
    }

    var orderedOOBCodes: [OOBRecord] { oobOrder.compactMap { oobCodes[$0] } }

    mutating func addVerification(_ record: PhoneVerification) {
        verificationCodes[record.sessionInfo] = record
        verificationOrder.append(record.sessionInfo)
        outbox.append("To verify the phone number \(record.phoneNumber), use the code \(record.code).")
    }

    mutating func removeVerification(_ sessionInfo: String) {
        verificationCodes[sessionInfo] = nil
        verificationOrder.removeAll { $0 == sessionInfo }
    }

    var orderedVerificationCodes: [PhoneVerification] { verificationOrder.compactMap { verificationCodes[$0] } }

    // MARK: Indexes

    /// The `password` provider mirrors email + (password or email link); `phone` mirrors phoneNumber.
    private static func syncDerivedProviders(_ user: inout UserRecord) {
        var providers = user.providerUserInfo ?? []
        providers.removeAll { $0.providerId == Provider.password || $0.providerId == Provider.phone }
        var derived: [ProviderUserInfo] = []
        if let email = user.email, user.passwordHash != nil || user.emailLinkSignin == true {
            derived.append(
                ProviderUserInfo(
                    providerId: Provider.password, rawId: email, federatedId: email, email: email,
                    displayName: user.displayName, photoUrl: user.photoUrl))
        }
        if let phone = user.phoneNumber {
            derived.append(ProviderUserInfo(providerId: Provider.phone, rawId: phone, phoneNumber: phone))
        }
        let merged = derived + providers
        user.providerUserInfo = merged.isEmpty ? (user.providerUserInfo == nil ? nil : []) : merged
    }

    private mutating func index(_ user: UserRecord) {
        if let email = user.email { localIdForEmail[email] = user.localId }
        if let phone = user.phoneNumber { localIdForPhone[phone] = user.localId }
        for provider in user.providerUserInfo ?? [] {
            localIdForProviderRawId[ProviderKey(providerId: provider.providerId, rawId: provider.rawId)] = user.localId
            if let email = provider.email { localIdsForProviderEmail[email, default: []].insert(user.localId) }
        }
    }

    private mutating func unindex(_ user: UserRecord) {
        if let email = user.email, localIdForEmail[email] == user.localId { localIdForEmail[email] = nil }
        if let phone = user.phoneNumber, localIdForPhone[phone] == user.localId { localIdForPhone[phone] = nil }
        for provider in user.providerUserInfo ?? [] {
            let key = ProviderKey(providerId: provider.providerId, rawId: provider.rawId)
            if localIdForProviderRawId[key] == user.localId { localIdForProviderRawId[key] = nil }
            if let email = provider.email {
                localIdsForProviderEmail[email]?.remove(user.localId)
                if localIdsForProviderEmail[email]?.isEmpty == true { localIdsForProviderEmail[email] = nil }
            }
        }
    }
}

/// An email action code waiting to be used.
struct OOBRecord: Sendable, Equatable {
    var email: String
    var newEmail: String?
    var requestType: String
    var oobCode: String
    var oobLink: String
}

extension OOBRecord {
    /// What the official emulator logs instead of sending the email.
    var notice: String {
        switch requestType {
        case "EMAIL_SIGNIN": return "To sign in as \(email), follow this link: \(oobLink)"
        case "PASSWORD_RESET":
            return "To reset the password for \(email), follow this link: \(oobLink)&newPassword=NEW_PASSWORD_HERE"
        case "VERIFY_EMAIL": return "To verify the email address \(email), follow this link: \(oobLink)"
        case "VERIFY_AND_CHANGE_EMAIL":
            return "To verify and change the email address from \(email) to \(newEmail ?? ""), follow this link: \(oobLink)"
        default: return "To reset your email address to \(email), follow this link: \(oobLink)"
        }
    }
}

/// An SMS code waiting to be used.
struct PhoneVerification: Sendable, Equatable {
    var code: String
    var phoneNumber: String
    var sessionInfo: String
}

/// Provider ids with meaning to the emulator.
enum Provider {
    static let password = "password"
    static let phone = "phone"
    static let anonymous = "anonymous"
    static let custom = "custom"
    static let emailLink = "emailLink"
}
