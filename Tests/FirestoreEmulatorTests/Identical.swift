@testable import FirestoreEmulator

/// Field values compared bit for bit: NaN equals NaN, -0.0 differs from 0.0, integers differ from doubles.
struct Identical: Equatable, CustomStringConvertible {
    let fields: [String: FirestoreValue]

    init(_ fields: [String: FirestoreValue]) { self.fields = fields }

    static func == (lhs: Identical, rhs: Identical) -> Bool { same(.map(lhs.fields), .map(rhs.fields)) }

    var description: String { "\(fields)" }

    private static func same(_ a: FirestoreValue, _ b: FirestoreValue) -> Bool {
        switch (a, b) {
        case (.double(let x), .double(let y)): return x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN)
        case (.integer(let x), .integer(let y)): return x == y
        case (.geoPoint(let a1, let o1), .geoPoint(let a2, let o2)): return a1.bitPattern == a2.bitPattern && o1.bitPattern == o2.bitPattern
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (.map(let x), .map(let y)): return x.keys.sorted() == y.keys.sorted() && x.allSatisfy { same($0.value, y[$0.key]!) }
        case (.integer, _), (.double, _), (.geoPoint, _), (.array, _), (.map, _): return false
        default: return a == b
        }
    }
}
