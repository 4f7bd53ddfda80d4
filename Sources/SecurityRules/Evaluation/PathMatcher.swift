/// Matches a request path against the `match` tree. A block applies when its pattern (after its ancestors')
/// consumes the whole path; `{x}` takes one segment, `{x=**}` takes the rest — zero or more segments in
/// rules version 2, one or more in version 1.
struct PathMatcher {
    /// A block whose pattern matched the whole path, with the wildcard values it bound.
    struct Candidate {
        var match: RuleProgram.Match
        var bindings: [(String, RuleValue)]
    }

    let version: RulesVersion

    /// Every block (in source order, outer before inner) that matches `path` exactly.
    func matches(_ blocks: [RuleProgram.Match], _ path: RulePath) -> [Candidate] {
        var found: [Candidate] = []
        visit(blocks, path.segments[...], [], into: &found)
        return found
    }

    private func visit(
        _ blocks: [RuleProgram.Match], _ rest: ArraySlice<String>, _ bindings: [(String, RuleValue)],
        into found: inout [Candidate]
    ) {
        for block in blocks {
            consume(block.pattern[...], rest, bindings) { remaining, bound in
                if remaining.isEmpty { found.append(Candidate(match: block, bindings: bound)) }
                if !block.children.isEmpty { visit(block.children, remaining, bound, into: &found) }
            }
        }
    }

    /// Calls `next` with every way `pattern` can consume a prefix of `rest`.
    private func consume(
        _ pattern: ArraySlice<PathPatternSegment>, _ rest: ArraySlice<String>, _ bindings: [(String, RuleValue)],
        _ next: (ArraySlice<String>, [(String, RuleValue)]) -> Void
    ) {
        guard let segment = pattern.first else {
            next(rest, bindings)
            return
        }
        let tail = pattern.dropFirst()
        switch segment {
        case .literal(let text):
            guard let first = rest.first, first == text else { return }
            consume(tail, rest.dropFirst(), bindings, next)
        case .variable(let name):
            guard let first = rest.first else { return }
            consume(tail, rest.dropFirst(), bindings + [(name, .string(first))], next)
        case .recursive(let name):
            let minimum = version == .v2 ? 0 : 1
            guard rest.count >= minimum else { return }
            for count in stride(from: rest.count, through: minimum, by: -1) {
                let taken = RulePath(segments: Array(rest.prefix(count)))
                consume(tail, rest.dropFirst(count), bindings + [(name, .path(taken))], next)
            }
        }
    }
}
