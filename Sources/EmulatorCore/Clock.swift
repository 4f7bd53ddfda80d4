import Foundation

/// The source of "now" for an emulator; injected so tests can control time.
public protocol EmulatorClock: Sendable {
    /// The current instant.
    func now() -> Date
}

/// The system's wall clock.
public struct SystemClock: EmulatorClock {
    /// Creates the system clock.
    public init() {}

    /// The current wall-clock time.
    public func now() -> Date { Date() }
}

extension Date {
    /// Whole milliseconds since the Unix epoch.
    public var millisecondsSince1970: Int64 { Int64((timeIntervalSince1970 * 1000).rounded(.down)) }

    /// Whole seconds since the Unix epoch.
    public var secondsSince1970: Int64 { Int64(timeIntervalSince1970.rounded(.down)) }

    /// RFC 3339 with milliseconds in UTC, e.g. `2024-05-01T10:00:00.123Z`: rounded to the nearest millisecond
    /// (a time read back from this text, a binary fraction just below it, writes the same text again).
    public var iso8601WithMilliseconds: String {
        let milliseconds = Int64((timeIntervalSince1970 * 1000).rounded())
        let (seconds, fraction) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let whole = fraction < 0 ? seconds - 1 : seconds
        let text = Date(timeIntervalSince1970: TimeInterval(whole))
            .formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC")!))
        let digits = String((fraction + 1000) % 1000)
        return text.dropLast() + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }
}
