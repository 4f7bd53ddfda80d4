import DatabaseRules
import DatabaseTree
import EmulatorCore
import Testing

@Suite("database.rules.json: reads, writes and validation")
struct AccessTests {
    @Test("a parent's .read grants its children; a child's does not grant the parent")
    func readCascades() throws {
        let rules = try rules(#"{"public": {".read": true}, "a": {"b": {".read": true}}}"#)
        #expect(rules.canRead("/public"))
        #expect(rules.canRead("/public/x/y"))
        #expect(rules.canRead("/a/b"))
        #expect(rules.canRead("/a/b/c"))
        #expect(!rules.canRead("/a"))  // rules are not filters
        #expect(!rules.canRead("/"))
        #expect(!rules.canRead("/other"))
    }

    @Test("a child's false does not revoke what a parent granted")
    func noRevoking() throws {
        let rules = try rules(#"{".read": true, "secret": {".read": false}}"#)
        #expect(rules.canRead("/secret"))
    }

    @Test(".write cascades like .read")
    func writeCascades() throws {
        let rules = try rules(#"{"inbox": {".write": true}, "logs": {"$day": {".write": true}}}"#)
        #expect(rules.canSet("/inbox", ["a": 1]))
        #expect(rules.canSet("/inbox/a/b", 1))
        #expect(rules.canSet("/logs/monday", ["x": 1]))
        #expect(!rules.canSet("/logs", ["monday": ["x": 1]]))
    }

    @Test("named children take precedence over the wildcard, which captures the key")
    func wildcards() throws {
        let rules = try rules(#"""
            {"rooms": {
               "lobby": {".read": true},
               "open-house": {".write": true},
               "$room": {".read": "$room.beginsWith('open-')", "$message": {".read": "$message == $room"}}
            }}
            """#)
        #expect(rules.canRead("/rooms/lobby"))
        #expect(rules.canRead("/rooms/open-1"))
        #expect(!rules.canRead("/rooms/closed"))
        #expect(rules.canRead("/rooms/closed/closed"))
        #expect(!rules.canRead("/rooms/closed/other"))
        #expect(!rules.canRead("/rooms/open-house"))  // its own rules apply, not the wildcard's
        #expect(!rules.canRead("/rooms/open-house/open-house"))
    }

    @Test("the chat app's presence: each user writes only their own /presence/$uid")
    func presence() throws {
        let rules = try rules(#"""
            {"presence": {
               ".read": "auth != null",
               "$uid": {
                 ".write": "auth != null && auth.uid == $uid",
                 ".validate": "newData.hasChildren(['online'])"
               }
            }}
            """#)
        let online: JSONValue = ["online": true, "lastSeen": 1_700_000_000_000]
        #expect(rules.canSet("/presence/alice", online, auth: user("alice")))
        #expect(!rules.canSet("/presence/bob", online, auth: user("alice")))
        #expect(!rules.canSet("/presence/alice", online))
        #expect(!rules.canSet("/presence/alice", ["lastSeen": 1], auth: user("alice")))
        // An update of one child is validated against the merged result.
        let before = tree(["presence": ["alice": ["online": true, "lastSeen": 1]]])
        #expect(rules.canSet("/presence/alice/online", false, over: before, auth: user("alice")))
        #expect(rules.canSet("/presence/alice/lastSeen", 2, over: before, auth: user("alice")))
        // Deleting is not validated.
        #expect(rules.canSet("/presence/alice", nil, over: before, auth: user("alice")))
        #expect(rules.canRead("/presence", before, auth: user("bob")))
        #expect(!rules.canRead("/presence", before))
    }

    @Test("the seeded chat app's database.rules.json")
    func seededRules() throws {
        let rules = try DatabaseRuleSet(source: """
            {
              "rules": {
                "presence": {
                  "$userId": {
                    ".read": "auth != null",
                    ".write": "auth != null && auth.uid == $userId"
                  }
                }
              }
            }
            """)
        let online: JSONValue = ["online": true, "lastSeen": 1_700_000_000_000]
        #expect(rules.canSet("/presence/u1", online, auth: user("u1")))
        #expect(rules.canSet("/presence/u1/online", false, auth: user("u1")))
        #expect(!rules.canSet("/presence/u2", online, auth: user("u1")))
        #expect(!rules.canSet("/presence/u1", online))
        #expect(!rules.canSet("/presence", ["u1": online], auth: user("u1")))
        #expect(rules.canRead("/presence/u2", auth: user("u1")))
        #expect(!rules.canRead("/presence/u2"))
        #expect(!rules.canRead("/presence", auth: user("u1")))
    }

    @Test(".validate on an ancestor sees the merged new data")
    func validateAncestors() throws {
        let rules = try rules(#"""
            {".write": true,
             "users": {"$uid": {".validate": "newData.hasChildren(['name', 'age'])"}}}
            """#)
        #expect(!rules.canSet("/users/u1/name", "Ann"))
        let existing = tree(["users": ["u1": ["name": "Ann", "age": 30]]])
        #expect(rules.canSet("/users/u1/age", 31, over: existing))
        #expect(rules.canSet("/users/u1", ["name": "Bo", "age": 2]))
        #expect(!rules.canSet("/users", ["u1": ["name": "Bo"]]))
        // Deleting a child leaves the user without it: the ancestor's rule fails.
        #expect(!rules.canSet("/users/u1/age", nil, over: existing))
        // Deleting the whole user is not validated.
        #expect(rules.canSet("/users/u1", nil, over: existing))
    }

    @Test(".validate below the written path: only where new data exists")
    func validateDescendants() throws {
        let rules = try rules(#"""
            {".write": true,
             "scores": {"$player": {".validate": "newData.isNumber() && newData.val() >= 0"}},
             "profile": {"name": {".validate": "newData.isString()"}, "banned": {".validate": false}}}
            """#)
        #expect(rules.canSet("/scores", ["a": 1, "b": 2]))
        #expect(!rules.canSet("/scores", ["a": 1, "b": -2]))
        #expect(!rules.canSet("/scores", ["a": 1, "b": "x"]))
        #expect(rules.canSet("/profile", ["name": "Ann"]))
        #expect(!rules.canSet("/profile", ["name": 5]))
        #expect(!rules.canSet("/profile", ["banned": true]))
        #expect(rules.canSet("/profile/banned", nil, over: tree(["profile": ["banned": true]])))
    }

    @Test("a `$other` wildcard with a false .validate refuses unexpected children")
    func noOtherChildren() throws {
        let rules = try rules(#"""
            {"messages": {"$id": {
               ".write": true,
               ".validate": "newData.hasChildren(['text'])",
               "text": {".validate": "newData.isString() && newData.val().length <= 10"},
               "$other": {".validate": false}
            }}}
            """#)
        #expect(rules.canSet("/messages/m1", ["text": "hi"]))
        #expect(!rules.canSet("/messages/m1", ["text": "hi", "extra": 1]))
        #expect(!rules.canSet("/messages/m1", ["text": "far too long a message"]))
        #expect(!rules.canSet("/messages/m1/extra", 1, over: tree(["messages": ["m1": ["text": "hi"]]])))
    }

    @Test(".validate does not cascade and does not grant")
    func validateAlone() throws {
        let unwritable = try rules(#"{"a": {".validate": true, "b": {".validate": false}}}"#)
        #expect(!unwritable.canSet("/a", 1))  // no .write
        let writable = try rules(#"{".write": true, "a": {".validate": false, "b": {".validate": true}}}"#)
        #expect(!writable.canSet("/a/b", 1))
    }

    @Test("multi-location updates: called per path with the merged tree")
    func multiLocation() throws {
        let rules = try rules(#"""
            {".write": true,
             "pair": {".validate": "newData.child('left').val() == newData.child('right').val()"}}
            """#)
        let old = tree(["pair": ["left": 1, "right": 1]])
        var merged = writing(2, at: "/pair/left", in: old)
        merged = writing(2, at: "/pair/right", in: merged)
        for path in ["/pair/left", "/pair/right"] {
            #expect(rules.canWrite(DatabasePath(path), oldRoot: old, newRoot: merged, auth: nil, now: 0))
        }
        #expect(!rules.canSet("/pair/left", 2, over: old))
    }

    @Test(".write can compare data and newData")
    func dataAndNewData() throws {
        let rules = try rules(#"""
            {"counters": {"$id": {".write": "!data.exists() && newData.val() == 0 || newData.val() == data.val() + 1"}}}
            """#)
        #expect(rules.canSet("/counters/c", 0))
        #expect(!rules.canSet("/counters/c", 1))
        let existing = tree(["counters": ["c": 4]])
        #expect(rules.canSet("/counters/c", 5, over: existing))
        #expect(!rules.canSet("/counters/c", 7, over: existing))
    }

    @Test("a priority write is checked against the node's rules")
    func priority() throws {
        let rules = try rules(#"{"a": {".write": true, "$x": {".write": false}}}"#)
        let old = tree(["a": 1])
        var node = old.child("a")
        node.setPriority(.number(3))
        var new = old
        new.set(node, at: DatabasePath("/a"))
        #expect(rules.canWrite(DatabasePath("/a/.priority"), oldRoot: old, newRoot: new, auth: nil, now: 0))
    }
}

@Suite("database.rules.json: expressions too deep or too long")
struct ExpressionLimitTests {
    @Test func nestingPastTheLimitIsAnErrorNotACrash() throws {
        for opening in ["(", "[", "!", "-"] {
            let text = String(repeating: opening, count: 10_000) + "true"
            #expect(throws: DatabaseRulesError.self) {
                try DatabaseRuleSet(source: #"{"rules": {".read": "\#(text)"}}"#)
            }
        }
        let nested = String(repeating: "(", count: 60) + "true" + String(repeating: ")", count: 60)
        #expect(try DatabaseRuleSet(source: #"{"rules": {".read": "\#(nested)"}}"#).canRead("/x"))
    }

    @Test func chainsPastTheLimitAreAnErrorNotACrash() throws {
        for (term, op) in [("1", " + "), ("true", " && "), ("true", " || "), ("1", " * "), ("1", " == ")] {
            let chain = Array(repeating: term, count: 20_000).joined(separator: op)
            #expect(throws: DatabaseRulesError.self) { try DatabaseRuleSet(source: #"{"rules": {".read": "\#(chain)"}}"#) }
        }
        let sum = Array(repeating: "1", count: 900).joined(separator: " + ")
        let all = Array(repeating: "true", count: 90).joined(separator: " && ")
        let rules = try DatabaseRuleSet(source: #"{"rules": {".read": "\#(sum) > 0", ".write": "\#(all)"}}"#)
        #expect(rules.canRead("/x"))
        #expect(rules.canSet("/x", 1))
    }
}

/// A decision's trace: the rules it evaluated, for the Emulator UI's Requests page.
@Suite struct DecisionTraceTests {
    @Test func aTraceNamesEachRuleEvaluatedWhereItIsInTheFile() throws {
        let source = "{\"rules\": {\n  \".read\": false,\n  \"rooms\": {\"$room\": {\".read\": \"auth != null\"}}\n}}"
        let rules = try DatabaseRuleSet(source: source)
        let trace = DatabaseRulesTrace()
        let path = DatabasePath(keys: ["rooms", "r1"])
        #expect(!rules.canRead(path, root: .empty, auth: nil, now: 0, query: nil, trace: trace))
        #expect(rules.explanation(of: trace) == """
            database.rules.json:2:12 / .read "false": false
            database.rules.json:3:32 /rooms/$room .read "auth != null": false
            """)
        let report = rules.report(of: trace)["report"]?.arrayValue ?? []
        #expect(report.count == 2)
        let scalars = Array(source.unicodeScalars)
        let texts = report.compactMap { entry -> String? in
            guard case .int(let start)? = entry["sourcePosition"]?["currentOffset"],
                case .int(let end)? = entry["sourcePosition"]?["endOffset"]
            else { return nil }
            var text = String.UnicodeScalarView()
            text.append(contentsOf: scalars[Int(start)...Int(end)])
            return String(text)
        }
        #expect(texts == ["false", "\"auth != null\""])
    }
}
