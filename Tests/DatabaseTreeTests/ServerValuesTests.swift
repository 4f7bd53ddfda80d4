import EmulatorCore
import Testing

import DatabaseTree

@Suite struct ServerValuesTests {
    private func json(_ text: String) throws -> JSONValue { try JSONValue.parse(text) }

    private func resolve(_ text: String, existing: String = "null", now: Int64 = 1_700_000_000_000) throws -> JSONValue {
        try ServerValues.resolve(try json(text), existing: try DataNode(json: try json(existing)), now: now)
    }

    @Test func timestamps() throws {
        #expect(try resolve(#"{".sv":"timestamp"}"#, now: 42) == 42)
        #expect(try resolve(#"{"a":{"b":{".sv":"timestamp"}},"c":1}"#, now: 42) == (try json(#"{"a":{"b":42},"c":1}"#)))
        #expect(try resolve(#"[1,{".sv":"timestamp"}]"#, now: 7) == [1, 7])
    }

    @Test func incrementsTheNumberAtTheSameSpot() throws {
        let increment = #"{".sv":{"increment":2}}"#
        #expect(try resolve(increment) == 2)
        #expect(try resolve(increment, existing: "40") == 42)
        #expect(try resolve(increment, existing: #""text""#) == 2)
        #expect(try resolve(increment, existing: #"{"a":1}"#) == 2)
        #expect(try resolve(#"{".sv":{"increment":1.5}}"#, existing: "1") == .double(2.5))
        #expect(try resolve(#"{".sv":{"increment":-1}}"#, existing: "0.5") == .double(-0.5))
        #expect(try resolve(#"{"a":{"n":\#(increment)},"m":\#(increment)}"#, existing: #"{"a":{"n":10},"m":"x"}"#)
            == (try json(#"{"a":{"n":12},"m":2}"#)))
        #expect(try resolve(#"[\#(increment)]"#, existing: #"{"0":5}"#) == [7])
    }

    @Test func placeholdersAsPriorities() throws {
        #expect(try resolve(#"{"a":1,".priority":{".sv":"timestamp"}}"#, now: 9) == (try json(#"{"a":1,".priority":9}"#)))
        #expect(try resolve(#"{".value":"x",".priority":{".sv":{"increment":1}}}"#, existing: #"{".value":"y",".priority":4}"#)
            == (try json(#"{".value":"x",".priority":5}"#)))
        #expect(try resolve(#"{".sv":{"increment":1},".priority":{".sv":"timestamp"}}"#, existing: "1", now: 3)
            == (try json(#"{".value":2,".priority":3}"#)))
        #expect(try resolve(#"{".value":{".sv":{"increment":1}}}"#, existing: "1") == [".value": 2])
    }

    @Test func refusesUnknownPlaceholders() throws {
        for text in [#"{".sv":"now"}"#, #"{"a":{".sv":{"multiply":2}}}"#, #"{".sv":{"increment":"1"}}"#, #"{".sv":true}"#] {
            #expect(throws: InvalidData.self, "\(text)") { try resolve(text) }
        }
        #expect(throws: InvalidData(message: #"Invalid data at /x/a: unknown server value "now""#)) {
            try ServerValues.resolve(["a": [".sv": "now"]], existing: .empty, now: 0, path: DatabasePath("x"))
        }
    }

    @Test func findsPlaceholders() throws {
        #expect(ServerValues.containsPlaceholder(try json(#"{"a":[1,{"b":{".sv":"timestamp"}}]}"#)))
        #expect(!ServerValues.containsPlaceholder(try json(#"{"a":[1,{"b":{"sv":"timestamp"}}],"c":".sv"}"#)))
        let plain = try json(#"{"a":1}"#)
        #expect(try ServerValues.resolve(plain, existing: .empty, now: 0) == plain)
    }
}
