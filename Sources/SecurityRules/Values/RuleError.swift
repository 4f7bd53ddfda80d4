/// A runtime error; errors are values that flow through evaluation (`&&`/`||` may absorb them) and deny
/// when they reach the top of a condition. Each is typed by its `kind` and keeps production's message.
public struct RuleError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure it is.
    public enum Kind: Sendable, Hashable {
        /// A member accessed or a method called on `null`.
        case nullValue
        /// A property missing from a map or object, or a binding missing from a path.
        case undefinedProperty
        /// A name that nothing in scope binds.
        case undefinedVariable
        /// A call to a function that does not exist, or to an expression that is not a function.
        case functionNotFound
        /// An operand or argument of the wrong type: no overload accepts it.
        case typeMismatch
        /// A call with the wrong number of arguments.
        case argumentCount
        /// An index, range, integer, timestamp or duration out of bounds (a float too large for an int
        /// included), or a division or modulo by zero.
        case outOfRange
        /// An argument of the right type but an invalid value: a date, duration unit, coordinate, regular
        /// expression, replacement or conversion input.
        case invalidArgument
        /// A document read (`get`, `exists` and their `After` forms) of a path that is not a document, or
        /// beyond the request's limit of reads.
        case documentAccess
        /// A call nested beyond the maximum depth, or a recursive call.
        case callLimit
        /// An expression that does not parse.
        case syntax
    }

    /// What kind of failure it is.
    public var kind: Kind

    /// What went wrong, in production's words, for explanations and logs.
    public var message: String

    /// Creates an error of `kind` with production's `message`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
