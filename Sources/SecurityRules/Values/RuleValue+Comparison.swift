extension RuleValue {
    /// How two values order, for `<`, `<=`, `>`, `>=`.
    enum Ordering: Sendable, Equatable {
        case less, equal, greater
        /// Same kind of value but no order, as with a NaN: every comparison is `false`.
        case unordered
        /// No ordering exists between these types: comparing them is an error.
        case incomparable
    }

    /// Production's ordering: numbers by value across int and float, strings by Unicode code point (the
    /// same as UTF-8 byte order), bytes as unsigned bytes, timestamps and durations by time. Booleans,
    /// null, lists, maps, sets, paths and latlngs have no order (rules.Boolean documents only `==` and
    /// `!=`; the official engine fails `[1] < [2]`).
    func ordering(comparedTo other: RuleValue) -> Ordering {
        switch (self, other) {
        case (.int(let a), .int(let b)): return Self.order(a, b)
        case (.int, .float), (.float, .int), (.float, .float):
            guard let a = asDouble, let b = other.asDouble, !a.isNaN, !b.isNaN else { return .unordered }
            return Self.order(a, b)
        case (.string(let a), .string(let b)): return Self.order(a.utf8, b.utf8)
        case (.bytes(let a), .bytes(let b)): return Self.order(a, b)
        case (.timestamp(let a), .timestamp(let b)): return Self.order(a, b)
        case (.duration(let a), .duration(let b)): return Self.order(a, b)
        default: return .incomparable
        }
    }

    private static func order<T: Comparable>(_ a: T, _ b: T) -> Ordering {
        a < b ? .less : a == b ? .equal : .greater
    }

    private static func order<C: Sequence>(_ a: C, _ b: C) -> Ordering where C.Element: Comparable {
        var left = a.makeIterator()
        var right = b.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return .equal
            case (nil, _): return .less
            case (_, nil): return .greater
            case (let x?, let y?): if x != y { return x < y ? .less : .greater }
            }
        }
    }
}
