import Foundation

extension FirestoreValue: Comparable {
    /// Firestore's total order of values (the order of `orderBy` and cursors).
    package static func < (lhs: FirestoreValue, rhs: FirestoreValue) -> Bool {
        compare(lhs, rhs) < 0
    }

    /// -1, 0 or 1: type order first, then within the type (numbers by value with NaN lowest, strings by
    /// UTF-8 bytes, references segment by segment, arrays element-wise then by length, vectors by length
    /// first, maps key by key).
    package static func compare(_ lhs: FirestoreValue, _ rhs: FirestoreValue) -> Int {
        let leftType = lhs.typeOrder
        let rightType = rhs.typeOrder
        if leftType != rightType { return leftType < rightType ? -1 : 1 }
        switch (lhs, rhs) {
        case (.null, .null): return 0
        case (.boolean(let a), .boolean(let b)): return a == b ? 0 : (a ? 1 : -1)
        case (.integer(let a), .integer(let b)): return a == b ? 0 : (a < b ? -1 : 1)
        case (.double(let a), .double(let b)): return compareDoubles(a, b)
        case (.integer(let a), .double(let b)): return compare(integer: a, double: b)
        case (.double(let a), .integer(let b)): return -compare(integer: b, double: a)
        case (.timestamp(let s1, let n1), .timestamp(let s2, let n2)):
            return s1 != s2 ? (s1 < s2 ? -1 : 1) : (n1 == n2 ? 0 : (n1 < n2 ? -1 : 1))
        case (.string(let a), .string(let b)): return compareUTF8(a.utf8, b.utf8)
        case (.bytes(let a), .bytes(let b)): return compareBytes(a, b)
        case (.reference(let a), .reference(let b)): return compareReferences(a, b)
        case (.geoPoint(let la, let lo), .geoPoint(let lb, let lob)):
            let latitude = compareDoubles(la, lb)
            return latitude != 0 ? latitude : compareDoubles(lo, lob)
        case (.array(let a), .array(let b)): return compareArrays(a, b)
        case (.map(let a), .map(let b)):
            if isVector(a), isVector(b) { return compareVectors(a, b) }
            return compareMaps(a, b)
        default: return 0
        }
    }

    /// A 64-bit summary of the value that orders as the values do wherever the summaries differ: if
    /// `compare(a, b) < 0` then `a.orderPrefix <= b.orderPrefix`, and values that compare equal have equal
    /// summaries. The type order fills the top 4 bits; below it, a number's value as a double (NaN lowest),
    /// a timestamp's seconds and the top of its nanoseconds, a string's or bytes' first 7 bytes, a
    /// geopoint's latitude, an array's first element's summary; references and maps have none. So an index
    /// search compares integers, and compares values only between equal summaries.
    var orderPrefix: UInt64 {
        let type = UInt64(typeOrder) << 60
        switch self {
        case .null, .reference, .map: return type
        case .boolean(let value): return type | (value ? 1 : 0)
        case .integer(let value): return type | Self.orderBits(Double(value)) >> 4
        case .double(let value): return type | Self.orderBits(value) >> 4
        case .timestamp(let seconds, let nanos):
            // Seconds from 0001-01-01 (39 bits cover the valid range), then the top 21 bits of the
            // nanoseconds; seconds out of range are clamped, with no nanoseconds.
            let first: Int64 = -62_135_596_800
            let last = first + (1 << 39) - 1
            guard seconds >= first, seconds <= last else { return type | UInt64(seconds < first ? 0 : last - first) << 21 }
            return type | UInt64(seconds - first) << 21 | UInt64(min(max(nanos, 0), 999_999_999)) >> 9
        case .string(let value): return type | Self.leadingBytes(value.utf8) << 4
        case .bytes(let value): return type | Self.leadingBytes(value) << 4
        case .geoPoint(let latitude, _): return type | Self.orderBits(latitude) >> 4
        case .array(let values): return type | (values.first?.orderPrefix ?? 0) >> 4
        }
    }

    /// A double's bits as an unsigned integer in the doubles' order (NaN 0, below every number; -0 as 0).
    private static func orderBits(_ value: Double) -> UInt64 {
        if value.isNaN { return 0 }
        let bits = (value == 0 ? 0.0 : value).bitPattern
        return bits >> 63 == 1 ? ~bits : bits | 1 << 63
    }

    /// The first 7 bytes big-endian, zero-padded: 56 bits.
    private static func leadingBytes(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var result: UInt64 = 0
        var count = 0
        for byte in bytes {
            result = result << 8 | UInt64(byte)
            count += 1
            if count == 7 { break }
        }
        return result << (8 * UInt64(7 - count))
    }

    /// Doubles with NaN lowest and NaN equal to NaN; -0 equals 0.
    private static func compareDoubles(_ a: Double, _ b: Double) -> Int {
        if a.isNaN { return b.isNaN ? 0 : -1 }
        if b.isNaN { return 1 }
        return a == b ? 0 : (a < b ? -1 : 1)
    }

    /// Compares two strings' UTF-8 bytes without copying them (`memcmp` when both are contiguous).
    static func compareUTF8<A: Sequence<UInt8>, B: Sequence<UInt8>>(_ a: A, _ b: B) -> Int {
        let contiguous = a.withContiguousStorageIfAvailable { left in
            b.withContiguousStorageIfAvailable { right -> Int in
                let common = min(left.count, right.count)
                if common > 0, let l = left.baseAddress, let r = right.baseAddress {
                    let result = memcmp(l, r, common)
                    if result != 0 { return result < 0 ? -1 : 1 }
                }
                return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
            }
        }
        if let result = contiguous ?? nil { return result }
        var left = a.makeIterator()
        var right = b.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let x?, let y?) where x != y: return x < y ? -1 : 1
            default: continue
            }
        }
    }

    private static func compareBytes(_ a: [UInt8], _ b: [UInt8]) -> Int {
        for (x, y) in zip(a, b) where x != y { return x < y ? -1 : 1 }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    /// References compare segment by segment; within a segment, `__id<n>__` numeric ids come first in
    /// numeric order, then UTF-8 byte order.
    package static func compareReferences(_ a: String, _ b: String) -> Int {
        let left = a.split(separator: "/", omittingEmptySubsequences: false)
        let right = b.split(separator: "/", omittingEmptySubsequences: false)
        for (x, y) in zip(left, right) {
            let result = compareSegments(x, y)
            if result != 0 { return result }
        }
        return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
    }

    static func compareSegments(_ a: Substring, _ b: Substring) -> Int {
        // Numeric ids (`__id<n>__`) start with an underscore; anything else compares by bytes.
        if a.utf8.first != UInt8(ascii: "_"), b.utf8.first != UInt8(ascii: "_") { return compareUTF8(a.utf8, b.utf8) }
        switch (numericID(a), numericID(b)) {
        case (let x?, let y?): return x == y ? 0 : (x < y ? -1 : 1)
        case (.some, nil): return -1
        case (nil, .some): return 1
        case (nil, nil): return compareUTF8(a.utf8, b.utf8)
        }
    }

    private static func numericID(_ segment: Substring) -> Int64? {
        guard segment.hasPrefix("__id"), segment.hasSuffix("__"), segment.count > 6 else { return nil }
        return Int64(segment.dropFirst(4).dropLast(2))
    }

    private static func compareArrays(_ a: [FirestoreValue], _ b: [FirestoreValue]) -> Int {
        // By index rather than zip: elements are borrowed, not copied out.
        for index in 0..<min(a.count, b.count) {
            let result = compare(a[index], b[index])
            if result != 0 { return result }
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    private static func compareVectors(_ a: [String: FirestoreValue], _ b: [String: FirestoreValue]) -> Int {
        guard case .array(let left)? = a["value"], case .array(let right)? = b["value"] else {
            return compareMaps(a, b)
        }
        if left.count != right.count { return left.count < right.count ? -1 : 1 }
        return compareArrays(left, right)
    }

    private static func compareMaps(_ a: [String: FirestoreValue], _ b: [String: FirestoreValue]) -> Int {
        let leftKeys = a.keys.sorted { compareUTF8($0.utf8, $1.utf8) < 0 }
        let rightKeys = b.keys.sorted { compareUTF8($0.utf8, $1.utf8) < 0 }
        for (x, y) in zip(leftKeys, rightKeys) {
            let keys = compareUTF8(x.utf8, y.utf8)
            if keys != 0 { return keys }
            let values = compare(a[x]!, b[y]!)
            if values != 0 { return values }
        }
        return leftKeys.count == rightKeys.count ? 0 : (leftKeys.count < rightKeys.count ? -1 : 1)
    }
}
