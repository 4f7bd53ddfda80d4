import EmulatorCore

extension FieldPath {
    /// The longest field path production accepts, in UTF-8 bytes.
    static let maximumLength = 1500

    /// Parses a field path as production's API does in masks and transforms: a simple segment is a letter or
    /// `_` followed by letters, digits and `_`; anything else must be backtick-quoted. A path that does not
    /// follow the rules is production's `Invalid property path "…".` (e.g. an unquoted `0foo` or `a-b`).
    init(validating text: String) throws(FirestoreError) {
        guard text.utf8.count <= Self.maximumLength, Self.quotesEverySegmentThatNeedsIt(text),
            let path = FieldPath(parsing: text)
        else {
            throw Self.invalid(text)
        }
        self = path
    }

    /// Parses the `field_paths` of a `DocumentMask` (also the `mask.fieldPaths` and `updateMask.fieldPaths`
    /// query parameters of the REST API), in order.
    static func fieldPaths(_ texts: [String]) throws(FirestoreError) -> [FieldPath] {
        var paths: [FieldPath] = []
        paths.reserveCapacity(texts.count)
        for text in texts { paths.append(try FieldPath(validating: text)) }
        return paths
    }

    /// Production's error for a malformed or forbidden field path.
    static func invalid(_ text: String) -> FirestoreError {
        FirestoreError(.invalidArgument, "Invalid property path \"\(text)\".")
    }

    /// Whether every unquoted segment is a simple name; quote placement is left to `FieldPath(parsing:)`.
    private static func quotesEverySegmentThatNeedsIt(_ text: String) -> Bool {
        var quoted = false
        var escaped = false
        var atSegmentStart = true
        for scalar in text.unicodeScalars {
            if quoted {
                if escaped {
                    escaped = false
                } else if scalar == "\\" {
                    escaped = true
                } else if scalar == "`" {
                    quoted = false
                }
                continue
            }
            switch scalar {
            case ".": atSegmentStart = true
            case "`":
                quoted = true
                atSegmentStart = false
            case "_", "a"..."z", "A"..."Z": atSegmentStart = false
            case "0"..."9": if atSegmentStart { return false }
            default: return false
            }
        }
        return true
    }
}
