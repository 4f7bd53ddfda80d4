import Synchronization
import Testing

@testable import SecurityRules

@Suite struct RulesetTests {
    static let rules = """
        rules_version = '2';
        service cloud.firestore {
          match /databases/{database}/documents {
            function signedIn() { return request.auth != null; }
            match /posts/{post} {
              allow read: if signedIn();
              allow write: if signedIn() && request.auth.uid == request.resource.data.owner;
            }
          }
        }
        """

    func compile(_ text: String = rules, coverage: Bool = false) throws -> CompiledRuleset {
        let compilation = RulesCompiler.compile(RulesSource(fileName: "firestore.rules", text: text), recordCoverage: coverage)
        return try #require(compilation.ruleset, "\(compilation.diagnostics)")
    }

    func request(_ method: RuleMethod, uid: String?, owner: String = "alice") -> RulesRequest {
        RulesRequest(
            service: .firestore, path: RulePath("/databases/(default)/documents/posts/p1"), method: method,
            request: .map([
                "auth": uid.map { .map(["uid": .string($0)]) } ?? .null,
                "resource": .map(["data": .map(["owner": .string(owner)])]),
            ]),
            resource: .null)
    }

    @Test func decisionsExplainThemselves() throws {
        let ruleset = try compile()
        let denied = ruleset.evaluate(request(.create, uid: "bob"))
        #expect(!denied.allowed)
        #expect(denied.outcomes.count == 1)
        #expect(denied.explanation == "firestore.rules:7:7 allow write: false")
        let allowed = ruleset.evaluate(request(.get, uid: "bob"))
        #expect(allowed.allowed)
        #expect(allowed.explanation == "firestore.rules:6:7 allow read: true")
        let unmatched = ruleset.evaluate(
            RulesRequest(
                service: .firestore, path: RulePath("/databases/(default)/documents/other/x"), method: .get,
                request: .map([:]), resource: .null))
        #expect(unmatched.explanation == "no allow statement matches this path and method")
    }

    @Test func letsFailOnlyWhereTheyAreUsed() throws {
        let ruleset = try compile(
            """
            rules_version = '2';
            service cloud.firestore {
              match /databases/{database}/documents {
                function unused() { let missing = resource.data.nothing.deeper; return true; }
                function absorbed() { let missing = resource.data.nothing; return missing == null || true; }
                function used() { let missing = resource.data.nothing; return missing == null; }
                match /a/{id} { allow get: if unused() && absorbed(); allow list: if used(); }
              }
            }
            """)
        let get = RulesRequest(
            service: .firestore, path: RulePath("/databases/(default)/documents/a/x"), method: .get,
            request: .map([:]), resource: .map(["data": .map([:])]))
        #expect(ruleset.evaluate(get).allowed, "a let that is never read, or whose error || absorbs, is no error")
        var list = get
        list.method = .list
        #expect(!ruleset.evaluate(list).allowed, "a let read where it fails fails the rule")
    }

    @Test func errorsDenyAndAreReported() throws {
        let ruleset = try compile()
        let decision = ruleset.evaluate(
            RulesRequest(
                service: .firestore, path: RulePath("/databases/(default)/documents/posts/p1"), method: .update,
                request: .map(["auth": .map(["uid": .string("alice")])]), resource: .null))
        #expect(!decision.allowed)
        guard case .error(let error) = decision.outcomes.first?.result else {
            Issue.record("expected an error outcome")
            return
        }
        #expect(error.message.contains("resource"))
    }

    @Test func coverageCountsEveryExpression() throws {
        let ruleset = try compile(coverage: true)
        _ = ruleset.evaluate(request(.get, uid: "bob"))
        _ = ruleset.evaluate(request(.get, uid: nil))
        let counts = try #require(ruleset.coverage).snapshot.values
        #expect(counts.contains { $0.trueCount == 1 && $0.falseCount == 1 })
    }

    @Test func debugOutputGoesToTheSink() throws {
        let ruleset = try compile(
            """
            rules_version = '2';
            service firebase.storage {
              match /b/{bucket}/o/{name} { allow read: if debug(name) == 'a.txt'; }
            }
            """)
        let seen = Mutex<[String]>([])
        let decision = ruleset.evaluate(
            RulesRequest(
                service: .storage, path: RulePath("/b/x/o/a.txt"), method: .get, request: .map([:]), resource: .null),
            debug: { line in seen.withLock { $0.append(line) } })
        #expect(decision.allowed)
        #expect(seen.withLock { $0 }.count == 1)
    }

    @Test func oneRulesetServesManyThreads() async throws {
        let ruleset = try compile()
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<200 {
                group.addTask { ruleset.evaluate(request(.get, uid: index.isMultiple(of: 2) ? "u" : nil)).allowed }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.filter { $0 }.count == 100)
    }
}

@Suite struct RulesCacheTests {
    @Test func sameTextCompilesOnce() {
        let cache = RulesCache()
        let source = RulesSource(fileName: "a.rules", text: "rules_version = '2'; service cloud.firestore { match /{d=**} { allow read; } }")
        let first = cache.compilation(of: [source])
        let second = cache.compilation(of: [source])
        #expect(first.ruleset === second.ruleset)
        var changed = source
        changed.text += "\n"
        #expect(cache.compilation(of: [changed]).ruleset !== first.ruleset)
    }

    @Test func longConditionChainsEvaluateWithoutExhaustingTheStack() throws {
        let chain = Array(repeating: "request.auth != null", count: 900).joined(separator: " && ")
        let text = "rules_version = '2'; service cloud.firestore { match /databases/{d}/documents/{x} { allow read: if \(chain); } }"
        let compilation = RulesCompiler.compile(RulesSource(fileName: "long.rules", text: text))
        let ruleset = try #require(compilation.ruleset, "\(compilation.diagnostics.prefix(3))")
        let decision = ruleset.evaluate(
            RulesRequest(
                service: .firestore, path: RulePath("/databases/(default)/documents/x"), method: .get,
                request: .map(["auth": .map(["uid": .string("u")])]), resource: .null))
        #expect(decision.allowed)
    }
}
