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
        var bindings: [(String, RuleValue)] = []
        visit(blocks, path.segments, from: 0, &bindings, into: &found)
        return found
    }

    private func visit(
        _ blocks: [RuleProgram.Match], _ path: [String], from start: Int, _ bindings: inout [(String, RuleValue)],
        into found: inout [Candidate]
    ) {
        for block in blocks {
            consume(block, 0, path, start, &bindings) { end, bindings in
                if end == path.count { found.append(Candidate(match: block, bindings: bindings)) }
                if !block.children.isEmpty { visit(block.children, path, from: end, &bindings, into: &found) }
            }
        }
    }

    /// Calls `next` with every end position at which `block.pattern[patternIndex...]` can consume
    /// `path[position...]`, with the wildcards bound on the way (pushed and popped on `bindings`).
    private func consume(
        _ block: RuleProgram.Match, _ patternIndex: Int, _ path: [String], _ position: Int,
        _ bindings: inout [(String, RuleValue)], _ next: (Int, inout [(String, RuleValue)]) -> Void
    ) {
        var patternIndex = patternIndex
        var position = position
        let pushed = bindings.count
        defer { bindings.removeSubrange(pushed...) }
        let pattern = block.pattern
        while patternIndex < pattern.count {
            switch pattern[patternIndex] {
            case .literal(let text):
                guard position < path.count, path[position] == text else { return }
            case .variable(let name):
                guard position < path.count else { return }
                bindings.append((name, .string(path[position])))
            case .recursive(let name):
                let minimum = version == .v2 ? 0 : 1
                let available = path.count - position
                guard available >= minimum else { return }
                for count in stride(from: available, through: minimum, by: -1) {
                    bindings.append((name, .path(RulePath(segments: Array(path[position..<position + count])))))
                    consume(block, patternIndex + 1, path, position + count, &bindings, next)
                    bindings.removeLast()
                }
                return
            }
            patternIndex += 1
            position += 1
        }
        next(position, &bindings)
    }
}
