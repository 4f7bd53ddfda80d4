import DatabaseRules
import DatabaseTree
import EmulatorCore
import Testing

@Suite("database.rules.json: expressions")
struct ExpressionTests {
    /// Whether `expression`, as the root's `.read`, grants over `data`.
    private func reads(
        _ expression: String, _ data: JSONValue = nil, auth: JSONValue? = nil, now: Int64 = 0, query: RuleQuery? = nil,
        at path: String = "/"
    ) throws -> Bool {
        let source = JSONValue.object(["rules": .object([".read": .string(expression)])]).serialized()
        return try DatabaseRuleSet(source: source).canRead(path, tree(data), auth: auth, now: now, query: query)
    }

    @Test("snapshots: child, exists, val, parent, hasChild, hasChildren, getPriority, is*")
    func snapshots() throws {
        let data: JSONValue = ["users": ["u1": ["name": "Ann", "age": 30, "admin": true]], "config": ["open": true]]
        #expect(try reads("root.child('config/open').val() == true", data))
        #expect(try reads("root.child('config').child('open').val() === true", data))
        #expect(try reads("data.child('users/u1').exists()", data))
        #expect(try reads("!data.child('users/u2').exists()", data))
        #expect(try reads("data.child('users/u1/name').val() == 'Ann'", data))
        #expect(try reads("data.child('users/u1/age').isNumber() && data.child('users/u1/name').isString()", data))
        #expect(try reads("data.child('users/u1/admin').isBoolean() && !data.child('users/u1').isBoolean()", data))
        #expect(try reads("data.child('users/u1').hasChild('name') && !data.child('users/u1').hasChild('zip')", data))
        #expect(try reads("data.child('users/u1').hasChildren(['name', 'age']) && data.hasChildren()", data))
        #expect(try !reads("data.child('users/u1').hasChildren(['name', 'zip'])", data))
        #expect(try reads("data.child('users/u1/name').parent().parent().child('u1/age').val() == 30", data))
        #expect(try reads("data.child('users').val() != null && data.child('nothing').val() == null", data))
        #expect(try reads("data.getPriority() == null", data))
        let prioritized: JSONValue = ["a": ["x": 1, ".priority": 5]]
        #expect(try reads("data.child('a').getPriority() == 5", prioritized))
        #expect(try reads("data.child('a/.priority').val() == 5", prioritized))
    }

    @Test("data is the node at the rule's location")
    func dataAtLocation() throws {
        let rules = try rules(#"{"items": {"$id": {".read": "data.child('public').val() == true && data.parent().exists()"}}}"#)
        let data = tree(["items": ["a": ["public": true], "b": ["public": false]]])
        #expect(rules.canRead("/items/a", data))
        #expect(!rules.canRead("/items/b", data))
        #expect(!rules.canRead("/items/c", data))
    }

    @Test("newData navigates the new tree; root and data the old one")
    func newDataTree() throws {
        let rules = try rules(#"""
            {"posts": {"$id": {".write": "newData.parent().parent().child('allowed/' + $id).val() == true || root.child('allowed/' + $id).exists()"}}}
            """#)
        let old = tree(["allowed": ["p2": true]])
        let withAllowance = writing(true, at: "/allowed/p1", in: old)
        #expect(rules.canWrite(DatabasePath("/posts/p1"), oldRoot: old, newRoot: writing("x", at: "/posts/p1", in: withAllowance), auth: nil, now: 0))
        #expect(!rules.canSet("/posts/p1", "x", over: old))
        #expect(rules.canSet("/posts/p2", "x", over: old))
    }

    @Test("strings: length, contains, beginsWith, endsWith, replace, case")
    func strings() throws {
        #expect(try reads("'hello'.length == 5 && ''.length == 0"))
        #expect(try reads("'hello'.contains('ell') && !'hello'.contains('xyz')"))
        #expect(try reads("'hello'.beginsWith('he') && 'hello'.endsWith('llo') && !'hello'.endsWith('he')"))
        #expect(try reads("'a.b.c'.replace('.', '/') == 'a/b/c'"))
        #expect(try reads("'MiXeD'.toLowerCase() == 'mixed' && 'MiXeD'.toUpperCase() == 'MIXED'"))
        #expect(try reads(#"'it\'s' == "it's" && 'a\nb'.length == 3"#))
        #expect(try reads("'users/' + 5 == 'users/5' && 'a' + 'b' == 'ab'"))
        #expect(try reads("'abc' < 'abd' && 'B' < 'a'"))
        let email = user("u1", token: ["email": "Ann@Example.com"])
        #expect(try reads("auth.token.email.toLowerCase().endsWith('@example.com')", auth: email))
    }

    @Test("matches with a regular expression literal")
    func regex() throws {
        #expect(try reads("'Hello'.matches(/^[a-z]+$/i)"))
        #expect(try !reads("'Hello'.matches(/^[a-z]+$/)"))
        #expect(try !reads("'Hello world'.matches(/^[a-z]+$/i)"))
        #expect(try reads("'say foo'.matches(/foo/)"))  // unanchored: any part
        #expect(try !reads("'say foo'.matches(/^foo/)"))
        #expect(try reads(#"'2024-01-31'.matches(/^\d{4}-\d{2}-\d{2}$/)"#))
        #expect(try !reads(#"'2024-1-31'.matches(/^\d{4}-\d{2}-\d{2}$/)"#))
        #expect(try reads(#"'a/b'.matches(/a\/b/)"#))
        let rules = try rules(#"{"names": {"$name": {".read": "$name.matches(/^[a-z]+$/i)"}}}"#)
        #expect(rules.canRead("/names/Alice"))
        #expect(!rules.canRead("/names/al1ce"))
    }

    @Test("now is the server time in milliseconds")
    func now() throws {
        let rules = try rules(#"{"events": {"$id": {".write": true, ".validate": "newData.child('at').val() <= now"}}}"#)
        #expect(rules.canSet("/events/e", ["at": 1000], now: 1000))
        #expect(!rules.canSet("/events/e", ["at": 1001], now: 1000))
        #expect(try reads("now > 1700000000000", now: 1_800_000_000_000))
    }

    @Test("query: only bounded, ordered reads")
    func query() throws {
        let rules = try rules(#"{"scores": {".read": "query.orderByChild == 'score' && query.limitToFirst <= 10"}}"#)
        #expect(rules.canRead("/scores", query: RuleQuery(orderByChild: "score", limitToFirst: 10)))
        #expect(!rules.canRead("/scores", query: RuleQuery(orderByChild: "score", limitToFirst: 11)))
        #expect(!rules.canRead("/scores", query: RuleQuery(orderByChild: "name", limitToFirst: 5)))
        #expect(!rules.canRead("/scores", query: RuleQuery(orderByChild: "score")))
        #expect(!rules.canRead("/scores"))
        #expect(try reads("query.orderByKey && query.startAt == 'b' && query.equalTo == null", query: RuleQuery(orderByKey: true, startAt: "b")))
        #expect(try reads("query.orderByValue == false && query.orderByPriority == false"))
    }

    @Test("auth: members, nested claims and indexing")
    func auth() throws {
        let claims = user("u1", token: ["email_verified": true, "firebase": ["sign_in_provider": "google.com"], "roles": ["admin"]])
        #expect(try reads("auth.uid == 'u1' && auth.token.email_verified == true", auth: claims))
        #expect(try reads("auth.token['firebase']['sign_in_provider'] == 'google.com'", auth: claims))
        #expect(try reads("auth.token.roles[0] == 'admin'", auth: claims))
        #expect(try reads("auth.token.missing == null", auth: claims))
        #expect(try reads("auth.provider == 'password'", auth: claims))
    }

    @Test("operators: arithmetic, comparison, equality, logic, conditional")
    func operators() throws {
        #expect(try reads("1 + 2 * 3 == 7 && (1 + 2) * 3 == 9 && 7 % 3 == 1 && 7 / 2 == 3.5 && -2 < 0"))
        #expect(try reads("10 - 2 - 3 == 5 && 1e3 == 1000 && .5 == 0.5"))
        #expect(try reads("1 == 1.0 && 'a' != 'b' && null == null && true != false"))
        #expect(try reads("1 != '1' && !(1 == '1') && null != 0 && '' != null"))
        #expect(try reads("2 >= 2 && 2 <= 2 && 3 > 2"))
        #expect(try reads("true ? 1 == 1 : false"))
        #expect(try reads("false || !false"))
        #expect(try !reads("false && true"))
    }

    @Test("a member of null is null, as the live service answers (goldibex/targaryen's recorded cases)")
    func membersOfNull() throws {
        #expect(try !reads("auth.uid == 'u1'"))
        #expect(try reads("!(auth.uid == 'u1')"))
        #expect(try reads("auth.uid != 'u1'"))
        #expect(try reads("auth.foo.bar == null"))
        #expect(try reads("auth.uid == 'x' || true"))
        #expect(try !reads("auth.uid.contains('x')"), "a method of null fails")
        #expect(try reads("(1 / 0 + '') == 'NaN'"), "dividing by zero gives NaN")
        #expect(try reads("query.orderByKey == true"), "a plain read is ordered by key")
    }

    @Test("what the live service refuses when rules are deployed, Hearth refuses")
    func refusedAsLive() {
        for rule in [
            "data == data", "root.child('a') != null", "root.val().notFound == false", "auth.x == 'a' ? 7 : true",
            "root.val().matches(/^(foo|)$/)",
        ] {
            #expect(compileError(JSONValue.object(["rules": [".read": .string(rule)]]).serialized()) != nil, "\(rule)")
        }
        #expect(compileError(#"{"rules": {".read": "root['exists']() && root.val().length < 3"}}"#) == nil)
    }

    @Test("an error makes the rule false, never true")
    func evaluationErrors() throws {
        #expect(try !reads("data.val() + 1 > 0", "text"))
        #expect(try !reads("data.val().length > 0", 5))
        #expect(try !reads("data.val().contains('x')", 5))
        #expect(try !reads("1 < 'a'"))
        #expect(try !reads("1 / 0 > 0"))
        #expect(try !reads("root.parent().exists()"))
        #expect(try !reads("data.child(auth.uid).exists()"))
        #expect(try !reads("data.child('a.b').exists()"))
        #expect(try !reads("data.val()", 5))  // not a boolean
        // Errors are not absorbed by the other side of || (left to right, the first error fails the rule).
        #expect(try !reads("data.val().contains('x') || true", 5))
    }

    @Test("short-circuiting keeps guarded rules error-free")
    func shortCircuit() throws {
        let rules = try rules(#"{"users": {"$uid": {".read": "auth != null && auth.uid == $uid"}}}"#)
        #expect(!rules.canRead("/users/u1"))
        #expect(rules.canRead("/users/u1", auth: user("u1")))
        #expect(try reads("auth == null || auth.uid == 'x'"))
        #expect(try reads("auth == null ? true : auth.uid == 'x'"))
    }

    @Test("val() of a node with children is not null and equals nothing")
    func valOfObject() throws {
        let data: JSONValue = ["a": ["b": 1]]
        #expect(try reads("data.child('a').val() != null", data))
        #expect(try !reads("data.child('a').val() == data.child('a').val()", data))
    }
}
