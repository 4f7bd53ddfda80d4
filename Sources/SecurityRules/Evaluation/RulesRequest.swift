/// Which rules service a ruleset or request belongs to.
public enum RulesService: String, Sendable, Hashable {
    /// `service cloud.firestore`: paths `/databases/{db}/documents/...`.
    case firestore = "cloud.firestore"
    /// `service firebase.storage`: paths `/b/{bucket}/o/...`.
    case storage = "firebase.storage"
}

/// One request to decide: what is asked, on which path, with `request` and `resource` bound by the caller.
public struct RulesRequest: Sendable {
    /// The service whose rules apply.
    public var service: RulesService
    /// The full path matched against `match` blocks, e.g. `/databases/(default)/documents/users/alice` or
    /// `/b/my-bucket/o/images/a.png`.
    public var path: RulePath
    /// The concrete method: `get`, `list`, `create`, `update` or `delete`.
    public var method: RuleMethod
    /// The `request` variable (a map: `auth`, `method`, `path`, `time`, `resource`, `query`, ...).
    public var request: RuleValue
    /// The `resource` variable (the existing document or object, or `null`).
    public var resource: RuleValue
    /// Set when `resource` is one sample of the documents a query admits: the rules must hold for all of
    /// them, which the official engine proves for a narrower set of conditions than evaluating would allow.
    public var proof: RulesProof?

    /// Creates a request.
    public init(
        service: RulesService, path: RulePath, method: RuleMethod, request: RuleValue, resource: RuleValue,
        proof: RulesProof? = nil
    ) {
        self.service = service
        self.path = path
        self.method = method
        self.request = request
        self.resource = resource
        self.proof = proof
    }
}

/// How a list rule is held to every document a query admits when `resource` stands for them through
/// samples of a range of field values, as the official engine decides it: a condition holds only if it is
/// made of comparisons of the fields with constants (joined by `&&`, `||`); fields the query pins with `==`
/// are constants too. So `!`, `is`, methods and arithmetic applied to a ranged field (or to a call of a
/// function) fail, and with `strictNumbers` (a range bounded by floats) so does comparing an int with a float.
public struct RulesProof: Sendable {
    /// An int compared with a float is an error.
    public var strictNumbers: Bool
    /// The fields of `resource` the query pins to one value (`["data", "f"]` for `where f == …`): constants,
    /// on which methods and arithmetic are provable.
    public var pinned: Set<[String]>

    /// A proof; `strictNumbers` when a sampled range has float bounds.
    public init(strictNumbers: Bool, pinned: Set<[String]> = []) {
        self.strictNumbers = strictNumbers
        self.pinned = pinned
    }
}

/// The data a ruleset may read while deciding: Firestore documents for `get()`/`exists()` (and their
/// `...After()` forms), and Storage's `firestore.get()`/`firestore.exists()`.
///
/// Documents are returned as the rules see them: a map `{data, id, __name__}` (see `RuleValue.document`).
public protocol RulesDataSource: Sendable {
    /// The document at `path` (`/databases/{db}/documents/...`) as it is now; `nil` if it does not exist.
    func document(at path: RulePath) -> RuleValue?
    /// The document at `path` as it would be if the request's writes succeed; `nil` if it would not exist.
    func documentAfter(at path: RulePath) -> RuleValue?
}

/// A data source with no documents.
public struct NoRulesData: RulesDataSource {
    /// Creates the empty source.
    public init() {}
    /// Always `nil`.
    public func document(at path: RulePath) -> RuleValue? { nil }
    /// Always `nil`.
    public func documentAfter(at path: RulePath) -> RuleValue? { nil }
}
