import Testing

@testable import SecurityRules

@Suite struct PathMatcherTests {
    func block(_ pattern: [PathPatternSegment], children: [RuleProgram.Match] = []) -> RuleProgram.Match {
        RuleProgram.Match(pattern: pattern, allows: [], children: children, scope: 0)
    }

    let documents = [PathPatternSegment.literal("databases"), .variable("database"), .literal("documents")]

    @Test func variableSegmentsBindOneSegment() {
        let tree = [block(documents, children: [block([.literal("users"), .variable("uid")])])]
        let found = PathMatcher(version: .v2).matches(tree, RulePath("/databases/(default)/documents/users/alice"))
        #expect(found.count == 1)
        let bindings = Dictionary(uniqueKeysWithValues: found[0].bindings)
        #expect(bindings["uid"] == .string("alice"))
        #expect(bindings["database"] == .string("(default)"))
        #expect(PathMatcher(version: .v2).matches(tree, RulePath("/databases/(default)/documents/users")).isEmpty)
        #expect(PathMatcher(version: .v2).matches(tree, RulePath("/databases/(default)/documents/users/a/b/c")).isEmpty)
    }

    @Test func recursiveWildcardMatchesZeroSegmentsOnlyInVersion2() {
        let tree = [block(documents, children: [block([.literal("cities"), .recursive("rest")])])]
        let path = RulePath("/databases/d/documents/cities")
        #expect(PathMatcher(version: .v2).matches(tree, path).count == 1)
        #expect(PathMatcher(version: .v1).matches(tree, path).isEmpty)
        let deep = RulePath("/databases/d/documents/cities/sf/landmarks/x")
        let found = PathMatcher(version: .v1).matches(tree, deep)
        #expect(found.count == 1)
        #expect(Dictionary(uniqueKeysWithValues: found[0].bindings)["rest"] == .path(RulePath("/sf/landmarks/x")))
    }

    @Test func overlappingBlocksAllApply() {
        let tree = [
            block(documents, children: [
                block([.literal("users"), .variable("uid")]),
                block([.recursive("any")]),
            ])
        ]
        let found = PathMatcher(version: .v2).matches(tree, RulePath("/databases/d/documents/users/u1"))
        #expect(found.count == 2)
    }

    @Test func recursiveWildcardInTheMiddleInVersion2() {
        let tree = [block([.literal("b"), .variable("bucket"), .literal("o"), .recursive("path"), .literal("meta")])]
        let found = PathMatcher(version: .v2).matches(tree, RulePath("/b/x/o/a/b/meta"))
        #expect(found.count == 1)
        #expect(Dictionary(uniqueKeysWithValues: found[0].bindings)["path"] == .path(RulePath("/a/b")))
    }
}
