import Foundation

/// Firestore's order of values, for sorting a listener's results as the server sorts query results: by type
/// (null, booleans, numbers, timestamps, strings, bytes, references, geo points, arrays, maps), then by value.
extension FirestoreValue {
    /// How `first` compares with `second`.
    static func compare(_ first: FirestoreValue, _ second: FirestoreValue) -> ComparisonResult {
        switch (first, second) {
        case (.bool(let a), .bool(let b)): return order(a ? 1 : 0, b ? 1 : 0)
        case (.integer(let a), .integer(let b)): return order(a, b)
        case (.integer, .double), (.double, .integer), (.double, .double):
            // NaN sorts before every other number.
            let (a, b) = (first.number, second.number)
            if a.isNaN || b.isNaN { return order(a.isNaN ? 0 : 1, b.isNaN ? 0 : 1) }
            return order(a, b)
        case (.timestamp(let a), .timestamp(let b)): return order(a, b)
        case (.string(let a), .string(let b)): return bytes(Array(a.utf8), Array(b.utf8))
        case (.bytes(let a), .bytes(let b)): return bytes(Array(a), Array(b))
        case (.reference(let a), .reference(let b)): return comparePaths(a, b)
        case (.geoPoint(let latitudeA, let longitudeA), .geoPoint(let latitudeB, let longitudeB)):
            let latitude = order(latitudeA, latitudeB)
            return latitude != .orderedSame ? latitude : order(longitudeA, longitudeB)
        case (.array(let a), .array(let b)):
            for (x, y) in zip(a, b) {
                let result = compare(x, y)
                if result != .orderedSame { return result }
            }
            return order(a.count, b.count)
        case (.map(let a), .map(let b)):
            let keysA = a.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            let keysB = b.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for (x, y) in zip(keysA, keysB) {
                let key = bytes(Array(x.utf8), Array(y.utf8))
                if key != .orderedSame { return key }
                let value = compare(a[x]!, b[y]!)
                if value != .orderedSame { return value }
            }
            return order(keysA.count, keysB.count)
        default:
            return order(first.typeOrder, second.typeOrder)
        }
    }

    /// How two document paths compare: segment by segment, each by its UTF-8 bytes.
    static func comparePaths(_ first: String, _ second: String) -> ComparisonResult {
        let (a, b) = (first.split(separator: "/"), second.split(separator: "/"))
        for (x, y) in zip(a, b) {
            let result = bytes(Array(x.utf8), Array(y.utf8))
            if result != .orderedSame { return result }
        }
        return order(a.count, b.count)
    }

    /// The rank of the value's type; sentinels, never read, come last.
    private var typeOrder: Int {
        switch self {
        case .null: 0
        case .bool: 1
        case .integer, .double: 2
        case .timestamp: 3
        case .string: 4
        case .bytes: 5
        case .reference: 6
        case .geoPoint: 7
        case .array: 8
        case .map: 9
        case .serverTimestamp, .delete, .increment, .arrayUnion, .arrayRemove: 10
        }
    }

    /// A number as a double (only called on numbers).
    private var number: Double {
        switch self {
        case .integer(let value): Double(value)
        case .double(let value): value
        default: .nan
        }
    }

    private static func order<Value: Comparable>(_ first: Value, _ second: Value) -> ComparisonResult {
        first < second ? .orderedAscending : first == second ? .orderedSame : .orderedDescending
    }

    private static func bytes(_ first: [UInt8], _ second: [UInt8]) -> ComparisonResult {
        first.lexicographicallyPrecedes(second)
            ? .orderedAscending : first == second ? .orderedSame : .orderedDescending
    }
}
