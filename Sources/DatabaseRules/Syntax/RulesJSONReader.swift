/// Reads JSON with comments over Unicode scalars, tracking line and column.
struct RulesJSONReader {
    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var line = 1
    private var lineStart = 0

    init(_ source: String) {
        scalars = Array(source.unicodeScalars)
    }

    private var location: SourceLocation { SourceLocation(line: line, column: index - lineStart + 1) }
    private var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    private mutating func advance() {
        if scalars[index] == "\n" {
            line += 1
            lineStart = index + 1
        }
        index += 1
    }

    private func error(_ reason: String) -> DatabaseRulesError { DatabaseRulesError(reason, at: location) }

    mutating func readDocument() throws(DatabaseRulesError) -> RulesJSON {
        try skipBlanks()
        guard current != nil else { throw error("The rules file is empty.") }
        let value = try readValue(depth: 0)
        try skipBlanks()
        if let scalar = current { throw error("Unexpected '\(scalar)' after the end of the JSON document.") }
        return value
    }

    /// Skips whitespace and comments.
    private mutating func skipBlanks() throws(DatabaseRulesError) {
        while let scalar = current {
            switch scalar {
            case " ", "\t", "\n", "\r", "\u{FEFF}": advance()
            case "/" where index + 1 < scalars.count && scalars[index + 1] == "/":
                while let next = current, next != "\n" { advance() }
            case "/" where index + 1 < scalars.count && scalars[index + 1] == "*":
                let start = location
                advance()
                advance()
                while true {
                    guard let next = current else { throw DatabaseRulesError("Unterminated /* comment.", at: start) }
                    advance()
                    if next == "*", current == "/" {
                        advance()
                        break
                    }
                }
            default: return
            }
        }
    }

    private mutating func readValue(depth: Int) throws(DatabaseRulesError) -> RulesJSON {
        guard depth < 256 else { throw error("The rules are nested too deeply.") }
        let start = location
        guard let scalar = current else { throw error("Unexpected end of the rules file.") }
        switch scalar {
        case "{": return RulesJSON(kind: .object(try readObject(depth: depth)), location: start)
        case "[": return RulesJSON(kind: .array(try readArray(depth: depth)), location: start)
        case "\"": return RulesJSON(kind: .string(try readString()), location: start)
        case "t": try readWord("true"); return RulesJSON(kind: .bool(true), location: start)
        case "f": try readWord("false"); return RulesJSON(kind: .bool(false), location: start)
        case "n": try readWord("null"); return RulesJSON(kind: .null, location: start)
        case "-", "0"..."9": return RulesJSON(kind: .number(try readNumber()), location: start)
        default: throw error("Unexpected '\(scalar)': expected a JSON value.")
        }
    }

    private mutating func readWord(_ word: String) throws(DatabaseRulesError) {
        let start = location
        for expected in word.unicodeScalars {
            guard current == expected else { throw DatabaseRulesError("Invalid JSON literal: expected '\(word)'.", at: start) }
            advance()
        }
    }

    private mutating func readNumber() throws(DatabaseRulesError) -> Double {
        let start = location
        var text = ""
        while let scalar = current, "+-.eE0123456789".unicodeScalars.contains(scalar) {
            text.unicodeScalars.append(scalar)
            advance()
        }
        guard let number = Double(text), number.isFinite else {
            throw DatabaseRulesError("Invalid JSON number '\(text)'.", at: start)
        }
        return number
    }

    private mutating func readObject(depth: Int) throws(DatabaseRulesError) -> [RulesJSON.Member] {
        advance()  // {
        var members: [RulesJSON.Member] = []
        var keys: Set<String> = []
        try skipBlanks()
        if current == "}" {
            advance()
            return members
        }
        while true {
            try skipBlanks()
            let keyLocation = location
            guard current == "\"" else { throw error("Expected a quoted key.") }
            let key = try readString().string
            guard keys.insert(key).inserted else { throw DatabaseRulesError("Duplicate key '\(key)'.", at: keyLocation) }
            try skipBlanks()
            guard current == ":" else { throw error("Expected ':' after the key '\(key)'.") }
            advance()
            try skipBlanks()
            members.append(RulesJSON.Member(key: key, keyLocation: keyLocation, value: try readValue(depth: depth + 1)))
            try skipBlanks()
            switch current {
            case ",":
                advance()
            case "}":
                advance()
                return members
            default:
                throw error("Expected ',' or '}' in an object.")
            }
        }
    }

    private mutating func readArray(depth: Int) throws(DatabaseRulesError) -> [RulesJSON] {
        advance()  // [
        var elements: [RulesJSON] = []
        try skipBlanks()
        if current == "]" {
            advance()
            return elements
        }
        while true {
            try skipBlanks()
            elements.append(try readValue(depth: depth + 1))
            try skipBlanks()
            switch current {
            case ",":
                advance()
            case "]":
                advance()
                return elements
            default:
                throw error("Expected ',' or ']' in an array.")
            }
        }
    }

    private mutating func readString() throws(DatabaseRulesError) -> RulesJSON.Text {
        let start = location
        advance()  // "
        var text = RulesJSON.Text(scalars: [], locations: [])
        while true {
            guard let scalar = current, scalar != "\n" else { throw DatabaseRulesError("Unterminated string.", at: start) }
            let here = location
            if scalar == "\"" {
                text.locations.append(here)
                advance()
                return text
            }
            advance()
            if scalar.value < 0x20 { throw DatabaseRulesError("Control character in a string.", at: here) }
            guard scalar == "\\" else {
                text.scalars.append(scalar)
                text.locations.append(here)
                continue
            }
            guard let escape = current else { throw DatabaseRulesError("Unterminated string.", at: start) }
            advance()
            let decoded: Unicode.Scalar
            switch escape {
            case "\"", "\\", "/": decoded = escape
            case "b": decoded = "\u{8}"
            case "f": decoded = "\u{C}"
            case "n": decoded = "\n"
            case "r": decoded = "\r"
            case "t": decoded = "\t"
            case "u": decoded = try readUnicodeEscape(at: here)
            default: throw DatabaseRulesError("Invalid escape '\\\(escape)' in a string.", at: here)
            }
            text.scalars.append(decoded)
            text.locations.append(here)
        }
    }

    /// The scalar of `\uXXXX` (after the `u`), joining a surrogate pair written as two escapes.
    private mutating func readUnicodeEscape(at start: SourceLocation) throws(DatabaseRulesError) -> Unicode.Scalar {
        let high = try readHex(at: start)
        if (0xD800..<0xDC00).contains(high), current == "\\", index + 1 < scalars.count, scalars[index + 1] == "u" {
            advance()
            advance()
            let low = try readHex(at: start)
            if (0xDC00..<0xE000).contains(low), let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) {
                return scalar
            }
        }
        guard let scalar = Unicode.Scalar(high) else { throw DatabaseRulesError("Invalid \\u escape in a string.", at: start) }
        return scalar
    }

    private mutating func readHex(at start: SourceLocation) throws(DatabaseRulesError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let scalar = current, scalar.isASCII, let digit = Int(String(scalar), radix: 16)
            else { throw DatabaseRulesError("Invalid \\u escape in a string.", at: start) }
            value = value * 16 + UInt32(digit)
            advance()
        }
        return value
    }
}
