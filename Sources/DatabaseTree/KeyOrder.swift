/// The order of child keys everywhere in a database: keys that read as 32-bit integers first, by value
/// (equal values: the shorter text first), then every other key by its UTF-16 code units (JavaScript's
/// string order), with the sentinel names `[MIN_NAME]` before all and `[MAX_NAME]` after all.
package enum KeyOrder {
    /// The name that sorts before every key (query bounds).
    package static let minName = "[MIN_NAME]"
    /// The name that sorts after every key (query bounds).
    package static let maxName = "[MAX_NAME]"

    /// Whether `a` sorts before `b`.
    package static func precedes(_ a: String, _ b: String) -> Bool { compare(a, b) < 0 }

    /// -1, 0 or 1 as `a` sorts before, with or after `b`.
    package static func compare(_ a: String, _ b: String) -> Int {
        if a == b { return 0 }
        if a == minName || b == maxName { return -1 }
        if b == minName || a == maxName { return 1 }
        return compare(a, integer: integerValue(a), b, integer: integerValue(b))
    }

    /// `compare` for two keys that are not sentinel names, with their `integerValue`s already read (sorts
    /// read them once per key); `names` orders two keys that are not integers (default: `compareUTF16`).
    package static func compare(
        _ a: String, integer x: Int32?, _ b: String, integer y: Int32?,
        names: (String, String) -> Int = compareUTF16
    ) -> Int {
        switch (x, y) {
        case let (x?, y?):
            if x != y { return x < y ? -1 : 1 }
            let (left, right) = (a.utf16.count, b.utf16.count)
            return left < right ? -1 : (left > right ? 1 : 0)
        case (.some, nil): return -1
        case (nil, .some): return 1
        case (nil, nil): return names(a, b)
        }
    }

    /// JavaScript's `<` on strings: code unit by code unit.
    package static func compareUTF16(_ a: String, _ b: String) -> Int {
        var left = a.utf16.makeIterator()
        var right = b.utf16.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case let (x?, y?) where x != y: return x < y ? -1 : 1
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            default: continue
            }
        }
    }

    /// The value of a key that reads as a 32-bit integer (`^-?(0*)\d{1,10}$` within Int32, as the SDKs'
    /// `tryParseInt`: `007` is 7 and `-0` is 0).
    package static func integerValue(_ key: String) -> Int32? {
        let utf8 = key.utf8
        guard let first = utf8.first else { return nil }
        var digits = utf8[...]
        if first == UInt8(ascii: "-") {
            digits = digits.dropFirst()
            guard !digits.isEmpty else { return nil }
        }
        guard digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int32(key)
    }
}
