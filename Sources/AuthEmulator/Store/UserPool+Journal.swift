import EmulatorCore

extension UserPool {
    /// What one operation changed in a pool's users: each changed user's record as it was before, so the changes can
    /// be written to a data folder, or undone when the folder refuses them.
    struct Journal: Sendable {
        /// Each changed user's record before its first change; `nil` when the user did not exist.
        var before: [String: UserRecord?] = [:]
        /// Whether every user was removed (`deleteAllUsers`), so the folder drops them all at once.
        var cleared = false

        /// Records that `localId`, which was `record`, is changing (only its first change counts).
        mutating func note(_ localId: String, was record: UserRecord?) {
            guard before.index(forKey: localId) == nil else { return }
            before.updateValue(record, forKey: localId)
        }
    }

    /// Starts a journal of the changes to come.
    mutating func startJournal() {
        journal = Journal()
    }

    /// Ends the journal, returning it.
    mutating func endJournal() -> Journal {
        defer { journal = nil }
        return journal ?? Journal()
    }

    /// Puts back the records `journal` saw change.
    mutating func undo(_ journal: Journal) {
        for (localId, record) in journal.before {
            if let record { save(record) } else { delete(localId: localId) }
        }
    }
}
