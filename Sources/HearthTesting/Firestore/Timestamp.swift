import Foundation

/// A point in time as Firestore stores it: seconds since the Unix epoch and nanoseconds within the second,
/// so values read back compare equal to what the server wrote (a `Date` would round them).
public struct Timestamp: Sendable, Hashable, Comparable {
    /// Whole seconds since 1970-01-01T00:00:00Z.
    public var seconds: Int64
    /// Nanoseconds within the second, 0 to 999,999,999.
    public var nanoseconds: Int32

    /// A timestamp from its parts.
    public init(seconds: Int64, nanoseconds: Int32) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    /// `date`, to the nearest microsecond (Firestore keeps microseconds).
    public init(_ date: Date) {
        let microseconds = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let (seconds, remainder) = microseconds.quotientAndRemainder(dividingBy: 1_000_000)
        self.init(
            seconds: remainder < 0 ? seconds - 1 : seconds,
            nanoseconds: Int32((remainder < 0 ? remainder + 1_000_000 : remainder) * 1000))
    }

    /// The timestamp as a `Date`.
    public var date: Date { Date(timeIntervalSince1970: Double(seconds) + Double(nanoseconds) / 1e9) }

    /// Earlier timestamps come first.
    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
    }
}
