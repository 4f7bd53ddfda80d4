/// A value in the rules language.
///
/// Equality follows production: `1 == 1.0`, lists compare element-wise, maps by keys and values, sets
/// ignore order. Ordering (`<`) is defined only between numbers, strings, bytes, timestamps, durations,
/// and lists of those; other comparisons are errors.
public enum RuleValue: Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Double)
    case string(String)
    case bytes([UInt8])
    case list([RuleValue])
    case map([String: RuleValue])
    case set(RuleSet)
    case path(RulePath)
    case timestamp(RuleTimestamp)
    case duration(RuleDuration)
    case latlng(RuleLatLng)
    /// The result of `map.diff(other)`.
    case mapDiff(MapDiff)
}

extension RuleValue {
    /// The production type name (`int`, `float`, `string`, `map`, ...), as `is` and messages use it.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "bool"
        case .int: return "int"
        case .float: return "float"
        case .string: return "string"
        case .bytes: return "bytes"
        case .list: return "list"
        case .map: return "map"
        case .set: return "set"
        case .path: return "path"
        case .timestamp: return "timestamp"
        case .duration: return "duration"
        case .latlng: return "latlng"
        case .mapDiff: return "map_diff"
        }
    }

    /// Whether the value has type `type` (`number` is int or float). No value is a `set` to `is`, sets
    /// included, as the official engine answers.
    public func `is`(_ type: TypeName) -> Bool {
        switch (type, self) {
        case (.number, .int), (.number, .float): return true
        case (.set, _): return false
        default: return type.rawValue == typeName
        }
    }
}

extension RuleValue: Equatable {
    /// Production equality: numbers by value across int/float (NaN is unequal to everything); lists and
    /// maps structurally with identical elements (`[1] == [1.0]` is false, as in the official engine);
    /// sets by equal members regardless of order; different types are unequal.
    public static func == (lhs: RuleValue, rhs: RuleValue) -> Bool {
        switch (lhs, rhs) {
        case (.int(let a), .float(let b)), (.float(let b), .int(let a)): return Double(a) == b
        default: return lhs.isIdentical(to: rhs)
        }
    }

    /// Equality inside lists and maps, and list membership: as `==`, but an int is never a float.
    public func isIdentical(to other: RuleValue) -> Bool {
        switch (self, other) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.int(let a), .int(let b)): return a == b
        case (.float(let a), .float(let b)): return a == b
        case (.string(let a), .string(let b)): return a == b
        case (.bytes(let a), .bytes(let b)): return a == b
        case (.list(let a), .list(let b)): return a.count == b.count && zip(a, b).allSatisfy { $0.isIdentical(to: $1) }
        case (.map(let a), .map(let b)):
            return a.count == b.count && a.allSatisfy { key, value in b[key].map(value.isIdentical) ?? false }
        case (.set(let a), .set(let b)): return a == b
        case (.path(let a), .path(let b)): return a == b
        case (.timestamp(let a), .timestamp(let b)): return a == b
        case (.duration(let a), .duration(let b)): return a == b
        case (.latlng(let a), .latlng(let b)): return a == b
        case (.mapDiff(let a), .mapDiff(let b)): return a == b
        default: return false
        }
    }
}

extension RuleValue: Hashable {
    /// Hashes consistently with `==`: an integral float hashes like the int.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(value)
        case .int(let value): hasher.combine(Double(value))
        case .float(let value): hasher.combine(value)
        case .string(let value): hasher.combine(value)
        case .bytes(let value): hasher.combine(value)
        case .list(let value): hasher.combine(value)
        case .map(let value): hasher.combine(value)
        case .set(let value): hasher.combine(value)
        case .path(let value): hasher.combine(value)
        case .timestamp(let value): hasher.combine(value)
        case .duration(let value): hasher.combine(value)
        case .latlng(let value): hasher.combine(value)
        case .mapDiff(let value): hasher.combine(value)
        }
    }
}

/// A set: unique elements, order not significant.
public struct RuleSet: Sendable, Hashable {
    /// The elements, first-occurrence order, without duplicates.
    public private(set) var elements: [RuleValue]
    private var members: Set<RuleValue>

    /// A set of `values`, duplicates dropped.
    public init(_ values: [RuleValue]) {
        var members = Set<RuleValue>()
        elements = values.filter { members.insert($0).inserted }
        self.members = members
    }

    /// Whether `value` is in the set.
    public func contains(_ value: RuleValue) -> Bool { members.contains(value) }

    /// The number of elements.
    public var count: Int { elements.count }

    /// Sets are equal when they have the same members.
    public static func == (lhs: RuleSet, rhs: RuleSet) -> Bool { lhs.members == rhs.members }

    /// Hashes the members, independent of order.
    public func hash(into hasher: inout Hasher) { hasher.combine(members) }
}

/// A path value: segments such as `databases`, `(default)`, `documents`, `users`, `alice`.
public struct RulePath: Sendable, Hashable, CustomStringConvertible {
    /// The segments, without slashes.
    public var segments: [String]

    /// A path of `segments`.
    public init(segments: [String]) { self.segments = segments }

    /// Parses `/a/b/c` (leading slash optional, empty segments dropped).
    public init(_ text: String) {
        segments = text.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    /// `/a/b/c`.
    public var description: String { "/" + segments.joined(separator: "/") }
}

/// A point in time with nanosecond precision (Firestore stores microseconds).
public struct RuleTimestamp: Sendable, Hashable, Comparable {
    /// Whole seconds since the Unix epoch.
    public var seconds: Int64
    /// Nanoseconds within the second, 0 ..< 1_000_000_000.
    public var nanos: Int32

    /// Creates a timestamp, normalizing `nanos` into range.
    public init(seconds: Int64, nanos: Int32 = 0) {
        let carry = Int64(nanos).quotientAndRemainder(dividingBy: 1_000_000_000)
        var seconds = seconds + carry.quotient
        var nanos = carry.remainder
        if nanos < 0 {
            nanos += 1_000_000_000
            seconds -= 1
        }
        self.seconds = seconds
        self.nanos = Int32(nanos)
    }

    /// Orders by time.
    public static func < (lhs: RuleTimestamp, rhs: RuleTimestamp) -> Bool {
        (lhs.seconds, lhs.nanos) < (rhs.seconds, rhs.nanos)
    }
}

/// A length of time with nanosecond precision (may be negative).
public struct RuleDuration: Sendable, Hashable, Comparable {
    /// Whole seconds.
    public var seconds: Int64
    /// Nanoseconds with the same sign as `seconds` (or zero), |nanos| < 1_000_000_000.
    public var nanos: Int32

    /// Creates a duration from seconds and nanoseconds (any signs; normalized).
    public init(seconds: Int64, nanos: Int32 = 0) {
        let total = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if !total.overflow, case let sum = total.partialValue.addingReportingOverflow(Int64(nanos)), !sum.overflow {
            let parts = sum.partialValue.quotientAndRemainder(dividingBy: 1_000_000_000)
            self.seconds = parts.quotient
            self.nanos = Int32(parts.remainder)
        } else {
            self.seconds = seconds
            self.nanos = nanos
        }
    }

    /// Orders by length.
    public static func < (lhs: RuleDuration, rhs: RuleDuration) -> Bool {
        (lhs.seconds, lhs.nanos) < (rhs.seconds, rhs.nanos)
    }
}

/// A geographic point in degrees.
public struct RuleLatLng: Sendable, Hashable {
    /// Latitude, -90 ... 90.
    public var latitude: Double
    /// Longitude, -180 ... 180.
    public var longitude: Double

    /// Creates a point.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// `left.diff(right)`: what changed between two maps.
public struct MapDiff: Sendable, Hashable {
    /// The map `diff` was called on.
    public var left: [String: RuleValue]
    /// The argument.
    public var right: [String: RuleValue]

    /// Creates a diff of `left` against `right`.
    public init(left: [String: RuleValue], right: [String: RuleValue]) {
        self.left = left
        self.right = right
    }
}
