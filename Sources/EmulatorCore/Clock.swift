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

    /// RFC 3339 with milliseconds in UTC, e.g. `2024-05-01T10:00:00.123Z`.
    public var iso8601WithMilliseconds: String {
        formatted(
            Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(identifier: "UTC")!)
        )
    }
}
