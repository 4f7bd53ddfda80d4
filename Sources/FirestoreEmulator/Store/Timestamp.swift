import Foundation

/// A point in time as Firestore keeps it: seconds and nanoseconds since the epoch. Times the emulator makes
/// (commit and read times) have microsecond precision, as production's.
struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The seconds a timestamp may have: `google.protobuf.Timestamp`'s range, 0001-01-01 to 9999-12-31.
    static let validSeconds: ClosedRange<Int64> = -62_135_596_800...253_402_300_799

    /// Whole seconds since the Unix epoch.
    var seconds: Int64
    /// Nanoseconds within the second, 0..<1_000_000_000.
    var nanos: Int32

    /// A timestamp of `seconds` and `nanos`.
    init(seconds: Int64, nanos: Int32) {
        self.seconds = seconds
        self.nanos = nanos
    }

    /// `date` truncated to microseconds.
    init(_ date: Date) {
        self.init(microseconds: Int64((date.timeIntervalSince1970 * 1_000_000).rounded(.down)))
    }

    /// A timestamp `microseconds` after the epoch.
    init(microseconds: Int64) {
        let (seconds, remainder) = microseconds.quotientAndRemainder(dividingBy: 1_000_000)
        if remainder < 0 {
            self.init(seconds: seconds - 1, nanos: Int32(remainder + 1_000_000) * 1000)
        } else {
            self.init(seconds: seconds, nanos: Int32(remainder) * 1000)
        }
    }

    /// Microseconds since the epoch (sub-microsecond digits dropped).
    var microseconds: Int64 { seconds * 1_000_000 + Int64(nanos / 1000) }

    /// The instant with its sub-millisecond digits dropped: `request.time` and server timestamps
    /// (`REQUEST_TIME`) have millisecond precision, as the official emulator gives them.
    var wholeMilliseconds: Timestamp { Timestamp(seconds: seconds, nanos: nanos - nanos % 1_000_000) }

    /// The instant as a `Date`.
    var date: Date { Date(timeIntervalSince1970: Double(seconds) + Double(nanos) / 1e9) }

    /// The value form (`timestampValue`).
    var value: FirestoreValue { .timestamp(seconds: seconds, nanos: nanos) }

    /// RFC 3339 in UTC, e.g. `2024-05-01T10:00:00.123456Z`.
    var description: String { FirestoreValue.formatTimestamp(seconds: seconds, nanos: nanos) }

    /// Earlier first.
    static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        (lhs.seconds, lhs.nanos) < (rhs.seconds, rhs.nanos)
    }
}
