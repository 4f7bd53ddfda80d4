import EmulatorCore
import Foundation
import Synchronization
import Testing

@testable import FirestoreEmulator

/// How long transactions live in the store, on a clock the test moves: production's 270 s limit and 60 s
/// idle expiration, and what an expired older transaction no longer holds up.
@Suite struct TransactionLifetimeTests {
    /// A clock that stands still until the test moves it.
    final class SteppedClock: EmulatorClock {
        private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))

        func now() -> Date { current.withLock { $0 } }

        func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }
    }

    let clock = SteppedClock()
    let database = DatabaseName(project: "p", database: "(default)")
    let path = DocumentPath(segments: ["counters", "c"])

    private func store() throws -> FirestoreStore {
        let store = try FirestoreStore(clock: clock)
        _ = try store.commit(database, writes: [write(0)]) { _, _, _ in }
        return store
    }

    private func write(_ n: Int64) -> Write {
        Write(path: path, operation: .update(fields: ["n": .integer(n)]))
    }

    private func read(_ store: FirestoreStore, in transaction: [UInt8]) throws {
        _ = try store.read(database, consistency: .transaction(transaction)) { view in view.document(at: path) }
    }

    private func commit(_ store: FirestoreStore, _ n: Int64, in transaction: [UInt8]) -> FirestoreError? {
        do {
            _ = try store.commit(database, writes: [write(n)], transaction: transaction) { _, _, _ in }
            return nil
        } catch {
            return error
        }
    }

    private static let expired = "The referenced transaction has expired or is no longer valid."

    @Test func aTransactionIdleForAMinuteExpires() throws {
        let store = try store()
        let transaction = try store.beginTransaction(database, mode: .readWrite())
        clock.advance(by: 59)
        try read(store, in: transaction)
        clock.advance(by: 59)
        #expect(commit(store, 1, in: transaction) == nil, "a read 59 s after the begin kept it alive")
        let idle = try store.beginTransaction(database, mode: .readWrite())
        clock.advance(by: 60)
        #expect(commit(store, 2, in: idle)?.message == Self.expired)
    }

    @Test func aTransactionExpiresAfter270SecondsHoweverBusy() throws {
        let store = try store()
        let transaction = try store.beginTransaction(database, mode: .readWrite())
        for _ in 0..<5 {
            clock.advance(by: 45)
            try read(store, in: transaction)
        }
        clock.advance(by: 45)
        #expect(commit(store, 1, in: transaction)?.message == Self.expired)
    }

    @Test func anExpiredOlderReaderHoldsNoYoungerCommitUp() throws {
        let store = try store()
        let older = try store.beginTransaction(database, mode: .readWrite())
        clock.advance(by: 1)
        let younger = try store.beginTransaction(database, mode: .readWrite())
        try read(store, in: older)
        try read(store, in: younger)
        #expect(store.mustWait(database, transaction: younger, writing: [path]))
        #expect(!store.mustWait(database, transaction: older, writing: [path]), "the older never waits")
        clock.advance(by: 30)
        try read(store, in: younger)
        clock.advance(by: 30)
        #expect(!store.mustWait(database, transaction: younger, writing: [path]), "the older one is idle 60 s")
        #expect(commit(store, 1, in: younger) == nil)
    }
}
