/// The compiled, immutable form of a ruleset: the match tree, and the functions with the lexical scopes
/// that make them visible. Shared by every evaluation.
struct RuleProgram: Sendable {
    /// A lexical scope: the service block or one `match` block.
    struct LexicalScope: Sendable {
        /// The enclosing scope (`nil` for a service block).
        var parent: Int?
        /// Functions declared here, by name, as indexes into `functions`.
        var functions: [String: Int]
    }

    /// A function and the scope it was declared in (where names in its body resolve).
    struct Function: Sendable {
        var declaration: FunctionDeclaration
        var scope: Int
        var fileName: String
    }

    /// A `match` block ready to match paths.
    struct Match: Sendable {
        var pattern: [PathPatternSegment]
        var allows: [Allow]
        var children: [Match]
        /// The lexical scope of the block's body.
        var scope: Int
    }

    /// An `allow` statement with its method groups expanded.
    struct Allow: Sendable {
        var methods: Set<RuleMethod>
        var declaredMethods: [RuleMethod]
        var condition: Expression?
        var location: SourceLocation
        var fileName: String
    }

    var version: RulesVersion
    var service: RulesService
    var matches: [Match]
    var scopes: [LexicalScope]
    var functions: [Function]
    /// Where diagnostics about a member or binary expression point, by expression id (`RulesFile.anchors`).
    var anchors: [Int: SourceLocation] = [:]

    /// The function `name` as seen from `scope`, innermost declaration first.
    func function(named name: String, from scope: Int) -> Function? {
        functionIndex(named: name, from: scope).map { functions[$0] }
    }

    /// The index in `functions` of the function `name` as seen from `scope`.
    func functionIndex(named name: String, from scope: Int) -> Int? {
        var current: Int? = scope
        while let index = current {
            if let function = scopes[index].functions[name] { return function }
            current = scopes[index].parent
        }
        return nil
    }
}
