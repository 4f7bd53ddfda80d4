/// The outcome of one request: allowed or not, and why.
public struct RulesDecision: Sendable {
    /// `true` only if some matching `allow` for the method evaluated to boolean `true`.
    public var allowed: Bool
    /// Every `allow` statement that applied to the request's path and method, in source order, with its outcome.
    public var outcomes: [AllowOutcome]

    /// Creates a decision.
    public init(allowed: Bool, outcomes: [AllowOutcome]) {
        self.allowed = allowed
        self.outcomes = outcomes
    }

    /// Why a `method` request was denied, as the official emulator words it after its message: each
    /// statement that applied, `false for 'update' @ L12` or `Null value error. for 'update' @ L12`,
    /// separated by `, `; empty when no statement applied.
    public func denial(for method: RuleMethod) -> String {
        outcomes.compactMap { outcome -> String? in
            let at = "for '\(method.rawValue)' @ L\(outcome.location.line)"
            switch outcome.result {
            case .allowed: return nil
            case .denied: return "false \(at)"
            case .error(let error): return "\(error.message) \(at)"
            }
        }.joined(separator: ", ")
    }

    /// One line per considered statement, e.g. `firestore.rules:7:7 allow read: false` — for logs and users.
    public var explanation: String {
        guard !outcomes.isEmpty else { return "no allow statement matches this path and method" }
        return outcomes.map(\.description).joined(separator: "\n")
    }
}

/// How one `allow` statement fared.
public struct AllowOutcome: Sendable, CustomStringConvertible {
    /// What the condition gave.
    public enum Result: Sendable, Equatable {
        /// Boolean `true`: the request is allowed.
        case allowed
        /// Evaluated to `false` or another non-true value (described).
        case denied(String)
        /// A runtime error.
        case error(RuleError)
    }

    /// The file of the statement.
    public var fileName: String
    /// Where the statement is.
    public var location: SourceLocation
    /// The methods it names, as written.
    public var methods: [RuleMethod]
    /// What happened.
    public var result: Result

    /// Creates an outcome.
    public init(fileName: String, location: SourceLocation, methods: [RuleMethod], result: Result) {
        self.fileName = fileName
        self.location = location
        self.methods = methods
        self.result = result
    }

    /// `file:line:col allow get, list: true|false (value)|error: message`.
    public var description: String {
        let head = "\(fileName):\(location) allow \(methods.map(\.rawValue).joined(separator: ", "))"
        switch result {
        case .allowed: return "\(head): true"
        case .denied(let value): return "\(head): \(value)"
        case .error(let error): return "\(head): error: \(error.message)"
        }
    }
}
