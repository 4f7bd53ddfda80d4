/// One rules file: its name (for diagnostics) and text.
public struct RulesSource: Sendable, Hashable {
    /// The file name diagnostics report (`firestore.rules`).
    public var fileName: String
    /// The rules text.
    public var text: String

    /// Creates a source.
    public init(fileName: String, text: String) {
        self.fileName = fileName
        self.text = text
    }
}

/// A position in a rules file; lines and columns count from 1.
public struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The line, from 1.
    public var line: Int
    /// The column, from 1 (in characters).
    public var column: Int

    /// Creates a location.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// `line:column`.
    public var description: String { "\(line):\(column)" }

    /// Orders locations by line, then column.
    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }
}

/// A compile-time finding, in the shape the official emulator returns from `PUT :securityRules`.
public struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
    /// How bad it is.
    public enum Severity: String, Sendable, Hashable {
        case error = "ERROR"
        case warning = "WARNING"
    }

    /// The severity.
    public var severity: Severity
    /// A clear, one-line message.
    public var message: String
    /// The file it is in.
    public var fileName: String
    /// Where in the file.
    public var location: SourceLocation
    /// The offsets (in Unicode scalars from the file's start) of the first and the last character of the
    /// token at `location`, as the official emulator's `currentOffset` and `endOffset` give them; set by
    /// the compiler.
    public var offsets: ClosedRange<Int>?

    /// Creates a diagnostic.
    public init(_ severity: Severity, _ message: String, fileName: String, at location: SourceLocation) {
        self.severity = severity
        self.message = message
        self.fileName = fileName
        self.location = location
    }

    /// `file:line:col: error: message`, as compilers print it.
    public var description: String {
        "\(fileName):\(location.line):\(location.column): \(severity == .error ? "error" : "warning"): \(message)"
    }
}
