import Foundation

/// A field's path as segments: written by users with dots (`address.city`), sent to the server with each
/// segment that is not a plain identifier quoted in backticks (`` `first-name` ``).
struct FieldPath: Hashable, Sendable {
    /// The field names from the top-level field inward.
    var segments: [String]

    /// The document's name, as queries order and filter by it.
    static let documentID = FieldPath(segments: ["__name__"])

    /// A path from its segments.
    init(segments: [String]) {
        self.segments = segments
    }

    /// A dot-separated path (`a.b.c`).
    init(dotted: String) {
        segments = dotted.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    /// The path with `name` appended.
    func appending(_ name: String) -> FieldPath { FieldPath(segments: segments + [name]) }

    /// The server's form: segments joined with dots, quoted where they are not identifiers.
    var encoded: String {
        segments.map { segment in
            let simple = segment.first.map { $0 == "_" || ($0.isASCII && $0.isLetter) } == true
                && segment.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
            if simple { return segment }
            return "`" + segment.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "`", with: "\\`") + "`"
        }.joined(separator: ".")
    }

    /// The value at this path in `fields`, if there is one.
    func value(in fields: [String: FirestoreValue]) -> FirestoreValue? {
        var value: FirestoreValue = .map(fields)
        for segment in segments {
            guard case .map(let map) = value, let next = map[segment] else { return nil }
            value = next
        }
        return value
    }
}

extension FieldPath {
    /// Whether `first` sorts before `second`: segment by segment, each by its UTF-8 bytes, as Firestore
    /// orders field paths.
    static func precedes(_ first: FieldPath, _ second: FieldPath) -> Bool {
        first.segments.lexicographicallyPrecedes(second.segments) { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}
