/// rules.Timestamp (methods, all in UTC) and the `timestamp` namespace.
///
/// Timestamps span 0001-01-01T00:00:00Z through 9999-12-31T23:59:59.999999999Z (the range protobuf and
/// Firestore can represent); arithmetic leaving it is an error.
extension Stdlib {
    /// Methods of rules.Timestamp.
    static let timestampMethods: [String: Method<RuleTimestamp>] = [
        "date": Method { time, _ in .timestamp(RuleTimestamp(seconds: time.seconds - time.secondOfDay)) },
        "year": Method { time, _ in .int(time.civil.year) },
        "month": Method { time, _ in .int(time.civil.month) },
        "day": Method { time, _ in .int(time.civil.day) },
        "hours": Method { time, _ in .int(time.civil.hour) },
        "minutes": Method { time, _ in .int(time.civil.minute) },
        "seconds": Method { time, _ in .int(time.civil.second) },
        "nanos": Method { time, _ in .int(Int64(time.nanos)) },
        "dayOfWeek": Method { time, _ in .int(time.civil.dayOfWeek) },
        "dayOfYear": Method { time, _ in .int(time.civil.dayOfYear) },
        "time": Method { time, _ in .duration(RuleDuration(seconds: time.secondOfDay, nanos: time.nanos)) },
        "toMillis": Method { time, _ in .int(time.seconds * 1000 + Int64(time.nanos) / 1_000_000) },
    ]

    /// `timestamp.date(year, month, day)` and `timestamp.value(epochMillis)`.
    static let timestampFunctions: [String: Function] = [
        "timestamp.date": Function(3...3) { arguments throws(RuleError) in
            let (year, month, day) = (try arguments.int(0), try arguments.int(1), try arguments.int(2))
            guard (1...9999).contains(year), (1...12).contains(month),
                (1...CivilTime.daysInMonth(year: year, month: month)).contains(day)
            else { throw RuleError(.invalidArgument, "Invalid date \(year)-\(month)-\(day).") }
            return .timestamp(RuleTimestamp(seconds: CivilTime.days(year: year, month: month, day: day) * 86_400))
        },
        "timestamp.value": Function(1...1) { arguments throws(RuleError) in
            let millis = try arguments.int(0)
            let parts = millis.quotientAndRemainder(dividingBy: 1000)
            let time = RuleTimestamp(seconds: parts.quotient, nanos: Int32(parts.remainder) * 1_000_000)
            return .timestamp(try time.checkedRange())
        },
    ]
}

extension RuleTimestamp {
    /// The earliest representable time, 0001-01-01T00:00:00Z.
    static let minimumSeconds: Int64 = -62_135_596_800
    /// The last representable second, 9999-12-31T23:59:59Z.
    static let maximumSeconds: Int64 = 253_402_300_799

    /// `self + duration`, an error outside the representable range.
    func adding(_ duration: RuleDuration) throws(RuleError) -> RuleTimestamp {
        try RuleTimestamp(seconds: seconds + duration.seconds, nanos: nanos + duration.nanos).checkedRange()
    }

    /// `self`, or an error if it is outside the representable range.
    func checkedRange() throws(RuleError) -> RuleTimestamp {
        guard (Self.minimumSeconds...Self.maximumSeconds).contains(seconds) else {
            throw RuleError(.outOfRange, "timestamp out of range")
        }
        return self
    }

    /// Seconds since midnight UTC.
    var secondOfDay: Int64 { seconds - seconds.floorDivided(by: 86_400) * 86_400 }

    /// The UTC calendar fields.
    var civil: CivilTime { CivilTime(seconds: seconds) }
}

/// A UTC date and time of day, from a count of seconds since the Unix epoch (proleptic Gregorian calendar).
struct CivilTime {
    var year: Int64, month: Int64, day: Int64
    var hour: Int64, minute: Int64, second: Int64
    /// Days since 1970-01-01.
    var epochDay: Int64

    /// The fields of `seconds` since the epoch.
    init(seconds: Int64) {
        epochDay = seconds.floorDivided(by: 86_400)
        let secondOfDay = seconds - epochDay * 86_400
        (hour, minute, second) = (secondOfDay / 3600, secondOfDay / 60 % 60, secondOfDay % 60)
        // Howard Hinnant's civil_from_days: eras of 400 years starting on March 1st.
        let shifted = epochDay + 719_468
        let era = shifted.floorDivided(by: 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfMarchYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let marchMonth = (5 * dayOfMarchYear + 2) / 153
        day = dayOfMarchYear - (153 * marchMonth + 2) / 5 + 1
        month = marchMonth < 10 ? marchMonth + 3 : marchMonth - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// ISO day of the week: 1 is Monday, 7 is Sunday (1970-01-01 was a Thursday).
    var dayOfWeek: Int64 { (epochDay + 3).floorModulo(7) + 1 }

    /// 1 for January 1st, up to 366.
    var dayOfYear: Int64 { epochDay - Self.days(year: year, month: 1, day: 1) + 1 }

    /// Days from 1970-01-01 to the given date (Howard Hinnant's days_from_civil).
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let marchYear = month <= 2 ? year - 1 : year
        let era = marchYear.floorDivided(by: 400)
        let yearOfEra = marchYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The number of days in `month` of `year`.
    static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

extension Int64 {
    /// Division rounding toward negative infinity.
    func floorDivided(by divisor: Int64) -> Int64 {
        let (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        return remainder != 0 && (remainder < 0) != (divisor < 0) ? quotient - 1 : quotient
    }

    /// The remainder of `floorDivided(by:)`, with the divisor's sign.
    func floorModulo(_ divisor: Int64) -> Int64 { self - floorDivided(by: divisor) * divisor }
}
