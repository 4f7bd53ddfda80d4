/// A JSON value read from the rules file, with where each part came from, members in file order and the
/// place of every character of every string (so an expression's errors point into the file).
struct RulesJSON {
    /// An object member.
    struct Member {
        var key: String
        var keyLocation: SourceLocation
        var value: RulesJSON
    }

    /// A string's text and the file location of each of its Unicode scalars, plus one for the closing quote.
    struct Text {
        var scalars: [Unicode.Scalar]
        var locations: [SourceLocation]

        var string: String { String(String.UnicodeScalarView(scalars)) }
    }

    enum Kind {
        case null
        case bool(Bool)
        case number(Double)
        case string(Text)
        case array([RulesJSON])
        case object([Member])
    }

    var kind: Kind
    /// Where the value starts.
    var location: SourceLocation

    /// The JSON type's name, for messages.
    var typeName: String {
        switch kind {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// Parses `source`: JSON in which `//` and `/* */` comments may stand wherever whitespace may.
    static func parse(_ source: String) throws(DatabaseRulesError) -> RulesJSON {
        var reader = RulesJSONReader(source)
        return try reader.readDocument()
    }
}
