/// A place in the rules file: 1-based line and column (columns count Unicode scalars).
package struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    /// The line, from 1.
    package var line: Int
    /// The column, from 1.
    package var column: Int

    /// The place at `line` and `column`, both from 1.
    package init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// `line:column`.
    package var description: String { "\(line):\(column)" }
}

/// Why `database.rules.json` could not be compiled, and where: a JSON syntax error, an unknown `.key`, a
/// rule that is not a boolean or expression, or an expression that does not parse or names an unknown
/// variable or method.
///
/// `message` reads `3:18: Unknown variable 'foo'.` (line:column: reason); firebase-tools prefixes the file
/// name when it logs a failed rules upload, giving the compiler-style `database.rules.json:3:18: ...`.
package struct DatabaseRulesError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where in the file the problem is.
    package var location: SourceLocation
    /// What is wrong, e.g. `Unknown variable 'foo'.`.
    package var reason: String

    /// A problem at `location`.
    package init(_ reason: String, at location: SourceLocation) {
        self.reason = reason
        self.location = location
    }

    /// `line:column: reason`, what the REST API returns as `error` when rules are refused.
    package var message: String { "\(location): \(reason)" }

    package var description: String { message }
}
