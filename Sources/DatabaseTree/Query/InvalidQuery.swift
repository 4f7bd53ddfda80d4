/// A query the database refuses: a malformed wire `q` object or bad REST query parameters.
package struct InvalidQuery: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong; for REST, production's `error` text.
    package var message: String

    /// An error with `message`.
    package init(message: String) {
        self.message = message
    }

    /// The message.
    package var description: String { message }
}
