import Foundation

/// A field path (`a.b.c`, with backtick-quoted segments for names that are not simple identifiers:
/// `` `my.field`.x ``), as used in masks, transforms, filters and orders. `__name__` is the document name.
package struct FieldPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The unquoted segments.
    package var segments: [String]

    /// The document-name pseudo-field.
    package static let documentName = FieldPath(segments: ["__name__"])

    /// A path of `segments` (each non-empty).
    package init(segments: [String]) {
        self.segments = segments
    }

    /// Parses the server's field path syntax; `nil` for an empty path, an empty segment, an unterminated
    /// quote or a stray character after a quoted segment.
    init?(parsing text: String) {
        var segments: [String] = []
        var current = ""
        var index = text.startIndex
        var quoted = false
        var justClosedQuote = false
        while index < text.endIndex {
            let character = text[index]
            if quoted {
                if character == "\\" {
                    index = text.index(after: index)
                    guard index < text.endIndex else { return nil }
                    current.append(text[index])
                } else if character == "`" {
                    quoted = false
                    justClosedQuote = true
                } else {
                    current.append(character)
                }
            } else if character == "." {
                guard !current.isEmpty else { return nil }
                segments.append(current)
                current = ""
                justClosedQuote = false
            } else if character == "`" {
                guard current.isEmpty else { return nil }
                quoted = true
            } else {
                guard !justClosedQuote else { return nil }
                current.append(character)
            }
            index = text.index(after: index)
        }
        guard !quoted, !current.isEmpty else { return nil }
        segments.append(current)
        self.segments = segments
    }

    /// The canonical text: simple identifiers bare, anything else in backticks with `\` escapes.
    package var description: String {
        segments.map(Self.quotedIfNeeded).joined(separator: ".")
    }

    private static func quotedIfNeeded(_ segment: String) -> String {
        let isSimple =
            segment.first.map { $0 == "_" || ($0.isASCII && $0.isLetter) } == true
            && segment.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
        guard !isSimple else { return segment }
        let escaped = segment.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "`", with: "\\`")
        return "`\(escaped)`"
    }

    /// Whether `self` is `other` or a prefix of it.
    func isPrefix(of other: FieldPath) -> Bool {
        other.segments.count >= segments.count && Array(other.segments.prefix(segments.count)) == segments
    }

    /// Orders segment by segment (UTF-8), shorter first.
    package static func < (lhs: FieldPath, rhs: FieldPath) -> Bool {
        for (a, b) in zip(lhs.segments, rhs.segments) where a != b {
            return Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
        }
        return lhs.segments.count < rhs.segments.count
    }
}

extension FirestoreValue {
    /// The value at `path` inside a document's fields, or `nil` if any step is missing or not a map.
    static func value(at path: FieldPath, in fields: [String: FirestoreValue]) -> FirestoreValue? {
        var current: FirestoreValue = .map(fields)
        for segment in path.segments {
            guard case .map(let map) = current, let next = map[segment] else { return nil }
            current = next
        }
        return current
    }
}
