import Testing

@testable import SecurityRules

/// `timestamp.value(millis)`.
private func timestamp(millis: Int64) throws -> RuleValue {
    try #require(try stdFunction("timestamp.value", .int(millis)))
}

/// `duration.value(magnitude, unit)`.
private func duration(_ magnitude: Int64, _ unit: String) throws -> RuleValue {
    try #require(try stdFunction("duration.value", .int(magnitude), .string(unit)))
}

@Suite("Stdlib timestamps")
struct StdlibTimestampTests {
    @Test("timestamp.date(1984, 1, 2) is 1984-01-02T00:00:00Z (rules.timestamp example)")
    func date() throws {
        let time = try #require(try stdFunction("timestamp.date", .int(1984), .int(1), .int(2)))
        // 14 years from 1970 with 3 leap days (1972, 1976, 1980), plus one day.
        #expect(time == .timestamp(RuleTimestamp(seconds: (14 * 365 + 3 + 1) * 86_400)))
        #expect(try stdFunction("string", time) == .string("1984-01-02T00:00:00Z"))
        #expect(try stdMethod(time, "year") == .int(1984))
        #expect(try stdMethod(time, "month") == .int(1))
        #expect(try stdMethod(time, "day") == .int(2))
        #expect(try stdMethod(time, "dayOfWeek") == .int(1))  // a Monday; 1 = Monday ... 7 = Sunday
        #expect(try stdMethod(time, "dayOfYear") == .int(2))
    }

    @Test("timestamp.date rejects impossible dates")
    func invalidDates() throws {
        #expect(try stdFunction("timestamp.date", .int(2000), .int(2), .int(29)) != nil)
        #expect(throws: RuleError.self) { try stdFunction("timestamp.date", .int(1900), .int(2), .int(29)) }
        #expect(throws: RuleError.self) { try stdFunction("timestamp.date", .int(2023), .int(13), .int(1)) }
        #expect(throws: RuleError.self) { try stdFunction("timestamp.date", .int(2023), .int(4), .int(31)) }
        #expect(throws: RuleError.self) { try stdFunction("timestamp.date", .int(0), .int(1), .int(1)) }
        #expect(throws: RuleError.self) { try stdFunction("timestamp.date", .int(2023), .string("1"), .int(1)) }
    }

    @Test("timestamp.value(epochMillis) and the field methods, in UTC")
    func fields() throws {
        let time = try timestamp(millis: 1_700_000_000_123)  // 2023-11-14T22:13:20.123Z, a Tuesday
        #expect(try stdFunction("string", time) == .string("2023-11-14T22:13:20.123Z"))
        #expect(try stdMethod(time, "year") == .int(2023))
        #expect(try stdMethod(time, "month") == .int(11))
        #expect(try stdMethod(time, "day") == .int(14))
        #expect(try stdMethod(time, "hours") == .int(22))
        #expect(try stdMethod(time, "minutes") == .int(13))
        #expect(try stdMethod(time, "seconds") == .int(20))
        #expect(try stdMethod(time, "nanos") == .int(123_000_000))
        #expect(try stdMethod(time, "dayOfWeek") == .int(2))
        #expect(try stdMethod(time, "dayOfYear") == .int(318))
        #expect(try stdMethod(time, "toMillis") == .int(1_700_000_000_123))
        #expect(try stdMethod(time, "date") == .timestamp(RuleTimestamp(seconds: 1_699_920_000)))
        #expect(try stdMethod(time, "time") == .duration(RuleDuration(seconds: 80_000, nanos: 123_000_000)))
    }

    @Test("before the epoch")
    func negative() throws {
        let time = try timestamp(millis: -1)
        #expect(try stdFunction("string", time) == .string("1969-12-31T23:59:59.999Z"))
        #expect(try stdMethod(time, "year") == .int(1969))
        #expect(try stdMethod(time, "seconds") == .int(59))
        #expect(try stdMethod(time, "nanos") == .int(999_000_000))
        #expect(try stdMethod(time, "toMillis") == .int(-1))
        #expect(try stdMethod(time, "dayOfWeek") == .int(3))  // 1969-12-31 was a Wednesday
    }

    @Test("leap years: day 366 and February 29th")
    func leapYears() throws {
        let lastDay = try #require(try stdFunction("timestamp.date", .int(2024), .int(12), .int(31)))
        #expect(try stdMethod(lastDay, "dayOfYear") == .int(366))
        #expect(try stdMethod(lastDay, "dayOfWeek") == .int(2))  // a Tuesday
        let leapDay = try #require(try stdFunction("timestamp.date", .int(2000), .int(2), .int(29)))
        #expect(try stdMethod(leapDay, "dayOfYear") == .int(60))
        let early = try #require(try stdFunction("timestamp.date", .int(1), .int(1), .int(1)))
        #expect(try stdMethod(early, "toMillis") == .int(-62_135_596_800_000))
        #expect(try stdMethod(early, "dayOfWeek") == .int(1))  // 0001-01-01 (proleptic Gregorian) was a Monday
    }

    @Test("timestamp ± duration, timestamp - timestamp")
    func arithmetic() throws {
        let time = try timestamp(millis: 1_000)
        #expect(try stdBinary(time, .add, try duration(1, "h")) == .timestamp(RuleTimestamp(seconds: 3_601)))
        #expect(try stdBinary(try duration(1, "h"), .add, time) == .timestamp(RuleTimestamp(seconds: 3_601)))
        #expect(try stdBinary(time, .subtract, try duration(1500, "ms")) == .timestamp(RuleTimestamp(seconds: -1, nanos: 500_000_000)))
        #expect(try stdBinary(try timestamp(millis: 3_500), .subtract, time) == .duration(RuleDuration(seconds: 2, nanos: 500_000_000)))
        #expect(try stdBinary(time, .subtract, try timestamp(millis: 3_500)) == .duration(RuleDuration(seconds: -2, nanos: -500_000_000)))
        #expect(try stdBinary(time, .less, try timestamp(millis: 1_001)) == .bool(true))
        #expect(throws: RuleError.self) { try stdBinary(time, .add, time) }
        #expect(throws: RuleError.self) { try stdBinary(time, .add, .int(1)) }
    }

    @Test("leaving 0001-01-01 .. 9999-12-31 is an error")
    func range() throws {
        let last = try #require(try stdFunction("timestamp.date", .int(9999), .int(12), .int(31)))
        #expect(throws: RuleError.self) { try stdBinary(last, .add, try duration(1, "d")) }
        #expect(throws: RuleError.self) { try timestamp(millis: .max) }
    }
}

@Suite("Stdlib durations")
struct StdlibDurationTests {
    @Test("duration.value units w, d, h, m, s, ms, ns (rules.duration)")
    func units() throws {
        #expect(try duration(1, "w") == .duration(RuleDuration(seconds: 604_800)))
        #expect(try duration(2, "d") == .duration(RuleDuration(seconds: 172_800)))
        #expect(try duration(3, "h") == .duration(RuleDuration(seconds: 10_800)))
        #expect(try duration(4, "m") == .duration(RuleDuration(seconds: 240)))
        #expect(try duration(5, "s") == .duration(RuleDuration(seconds: 5)))
        #expect(try duration(1_500, "ms") == .duration(RuleDuration(seconds: 1, nanos: 500_000_000)))
        #expect(try duration(-7, "ns") == .duration(RuleDuration(seconds: 0, nanos: -7)))
        #expect(throws: RuleError.self) { try duration(1, "y") }
        #expect(throws: RuleError.self) { try stdFunction("duration.value", .float(1.5), .string("s")) }
    }

    @Test("duration.abs (rules.duration example)")
    func abs() throws {
        #expect(try stdFunction("duration.abs", try duration(-10, "s")) == (try duration(10, "s")))
        #expect(try stdFunction("duration.abs", try duration(10, "s")) == (try duration(10, "s")))
        #expect(try stdFunction("duration.abs", try duration(-3, "ns")) == (try duration(3, "ns")))
        #expect(throws: RuleError.self) { try stdFunction("duration.abs", .int(-1)) }
    }

    @Test("duration.time(hours, mins, secs, nanos)")
    func time() throws {
        #expect(try stdFunction("duration.time", .int(1), .int(2), .int(3), .int(4))
            == .duration(RuleDuration(seconds: 3_723, nanos: 4)))
        #expect(try stdFunction("duration.time", .int(0), .int(0), .int(1), .int(-500_000_000))
            == .duration(RuleDuration(seconds: 0, nanos: 500_000_000)))
    }

    @Test("seconds() and nanos() are signed parts (rules.Duration)")
    func parts() throws {
        let negative = try duration(-1_500, "ms")
        #expect(try stdMethod(negative, "seconds") == .int(-1))
        #expect(try stdMethod(negative, "nanos") == .int(-500_000_000))
        #expect(try stdFunction("string", negative) == .string("-1.500s"))
    }

    @Test("duration arithmetic and comparison; ±315,576,000,000 s bound")
    func arithmetic() throws {
        #expect(try stdBinary(try duration(1, "m"), .add, try duration(1, "s")) == (try duration(61, "s")))
        #expect(try stdBinary(try duration(1, "m"), .subtract, try duration(1, "s")) == (try duration(59, "s")))
        #expect(try stdBinary(try duration(1, "s"), .subtract, try duration(1500, "ms")) == (try duration(-500, "ms")))
        #expect(try stdBinary(try duration(1, "h"), .greater, try duration(59, "m")) == .bool(true))
        #expect(try duration(315_576_000_000, "s") == .duration(RuleDuration(seconds: 315_576_000_000)))
        #expect(throws: RuleError.self) { try duration(315_576_000_001, "s") }
        #expect(throws: RuleError.self) { try duration(.max, "w") }
    }
}
