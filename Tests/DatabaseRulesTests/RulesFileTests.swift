import DatabaseRules
import DatabaseTree
import EmulatorCore
import Testing

@Suite("database.rules.json: the file")
struct RulesFileTests {
    @Test("comments are allowed and the source is kept as given")
    func comments() throws {
        let source = """
            // The chat app's rules.
            {
              /* everything is private */
              "rules": {
                ".read": "auth != null", // signed in
                ".write": false /* nobody */
              }
            }
            """
        let rules = try DatabaseRuleSet(source: source)
        #expect(rules.source == source)
        #expect(rules.canRead("/x", auth: user("u1")))
        #expect(!rules.canRead("/x"))
        #expect(!rules.canSet("/x", 1, auth: user("u1")))
    }

    @Test("a // inside a string is not a comment")
    func slashesInStrings() throws {
        let rules = try rules(#"{".read": "'http://x' == 'http://x'"}"#)
        #expect(rules.canRead("/"))
    }

    @Test("open and locked")
    func builtIn() {
        #expect(DatabaseRuleSet.open.canRead("/a/b"))
        #expect(DatabaseRuleSet.open.canSet("/a/b", 1))
        #expect(!DatabaseRuleSet.locked.canRead("/a/b"))
        #expect(!DatabaseRuleSet.locked.canSet("/a/b", 1))
    }

    @Test("no rules at all denies everything")
    func empty() throws {
        let rules = try rules("{}")
        #expect(!rules.canRead("/"))
        #expect(!rules.canSet("/a", 1))
    }

    @Test(".indexOn: a string or an array, found through wildcards")
    func indexOn() throws {
        let rules = try rules(#"""
            {"scores": {".indexOn": "score"},
             "rooms": {"$room": {"messages": {".indexOn": ["timestamp", ".value"]}}}}
            """#)
        #expect(rules.indexOn(DatabasePath("/scores")) == ["score"])
        #expect(rules.indexOn(DatabasePath("/rooms/r1/messages")) == ["timestamp", ".value"])
        #expect(rules.indexOn(DatabasePath("/rooms/r1")) == [])
        #expect(rules.indexOn(DatabasePath("/elsewhere/deep")) == [])
    }

    @Test("an unknown variable is reported at its line and column")
    func unknownVariable() throws {
        let source = """
            {
              "rules": {
                ".read": "foo == 1"
              }
            }
            """
        let error = try #require(compileError(source))
        #expect(error.location == SourceLocation(line: 3, column: 15))
        #expect(error.reason == "Unknown variable 'foo'.")
        #expect(error.message == "3:15: Unknown variable 'foo'.")
    }

    @Test("columns count the file's characters, escapes included")
    func escapedColumns() throws {
        let error = try #require(compileError(#"{"rules": {".read": "\"x\" == foo"}}"#))
        #expect(error.location == SourceLocation(line: 1, column: 31))
    }

    @Test(
        "compile errors",
        arguments: [
            (#"{"rules": {".read": true,}}"#, "1:26", "Expected a quoted key."),
            (#"{"rules": {".read": true}"#, "1:26", "Expected ',' or '}' in an object."),
            (#"{"rules": {".wrte": true}}"#, "1:12", "Invalid key: '.wrte' (only .read, .write, .validate and .indexOn may start with '.')."),
            (#"{"rules": {".read": 1}}"#, "1:21", ".read must be a boolean or a string expression, not a number."),
            (#"{"rules": {".read": "'yes'"}}"#, "1:22", "Expression must evaluate to a boolean, not a string."),
            (#"{"rules": {"$a": {}, "$b": {}}}"#, "1:22", "Can't have two wildcards ('$a' and '$b') at the same level."),
            (#"{"rules": {".read": "auth.uid =="}}"#, "1:33", "Unexpected end of expression."),
            (#"{"rules": {".read": "auth.uid = 'x'"}}"#, "1:31", "Unexpected '=': use '==' to compare."),
            (#"{"rules": {".read": "data.foo()"}}"#, "1:27", "No such method/property 'foo'."),
            (#"{"rules": {".read": "data.exists"}}"#, "1:27", "'exists' is a method: call it as exists()."),
            (#"{"rules": {".read": "data.child()"}}"#, "1:27", "child() takes 1 argument, not 0."),
            (#"{"rules": {".read": "newData.exists()"}}"#, "1:22", "Unknown variable 'newData'."),
            (#"{"rules": {".write": "query.limitToFirst < 5"}}"#, "1:23", "Unknown variable 'query'."),
            (#"{"rules": {".read": "query.limit == 5"}}"#, "1:28", "No such method/property 'limit'."),
            (#"{"rules": {"a": {".read": "$a == 'x'"}}}"#, "1:28", "Unknown variable '$a'."),
            (#"{"rules": {".read": "auth.uid.matches('x')"}}"#, "1:39", "matches() takes a regular expression literal, e.g. matches(/^[a-z]+$/)."),
            (#"{"rules": {".read": "auth.uid.matches(/x/g)"}}"#, "1:39", "Unsupported regular expression flag 'g': only 'i' is supported."),
            (#"{"rules": {".read": "auth.uid.matches(/a^b/)"}}"#, "1:39", "'^' can only be used as the first character of a regular expression."),
            (#"{"rules": {".read": "/x/ == 1"}}"#, "1:22", "A regular expression literal may only be the argument of matches()."),
            (#"{"rules": {".read": "data.val() + data > 1"}}"#, "1:35", "Type error: '+' only operates on numbers and strings, not a RuleDataSnapshot."),
            (#"{"rules": {".read": "now.length > 1"}}"#, "1:26", "No such method/property 'length'."),
            (#"{"rules": {".indexOn": 5}}"#, "1:24", ".indexOn must be a string or an array of strings, not a number."),
            (#"{"rules": {"a#b": {}}}"#, "1:12", "Invalid key 'a#b': keys can't contain '.', '#', '$', '/', '[' or ']'."),
            (#"{"rules": {"a": true}}"#, "1:17", "Expected an object of rules, not a boolean."),
            (#"{"rulez": {}}"#, "1:2", "Invalid key 'rulez': the rules file may only have a \"rules\" key."),
            (#"{}"#, "1:1", "The rules file must have a \"rules\" key."),
            ("{\"rules\": {} /* open", "1:14", "Unterminated /* comment."),
        ])
    func errors(source: String, location: String, reason: String) throws {
        let error = try #require(compileError(source))
        #expect(error.location.description == location)
        #expect(error.reason == reason)
    }

    @Test("the error is on the rule's own line in a multi-line file")
    func multiLine() throws {
        let source = """
            {
              "rules": {
                "users": {
                  "$uid": {
                    ".write": "auth.uid == $uid",
                    ".validate": "newData.hasChildren(['name']) && newData.child('name').isString() && bogus()"
                  }
                }
              }
            }
            """
        let error = try #require(compileError(source))
        #expect(error.location.line == 6)
        #expect(error.reason == "Unknown variable 'bogus'.")
    }
}
