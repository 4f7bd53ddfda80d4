import EmulatorCore
import Testing

import DatabaseTree

@Suite struct DatabaseQueryRESTTests {
    private func query(_ parameters: [String: String]) throws -> DatabaseQuery? {
        try DatabaseQuery(restParameters: parameters)
    }

    private func message(_ parameters: [String: String]) -> String? {
        do {
            _ = try DatabaseQuery(restParameters: parameters)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func noQueryParametersIsNoQuery() throws {
        #expect(try query([:]) == nil)
        #expect(try query(["print": "pretty", "auth": "x", "shallow": "true"]) == nil)
    }

    @Test func readsOrderBy() throws {
        #expect(try query(["orderBy": #""$key""#])?.index == .key)
        #expect(try query(["orderBy": #""$value""#])?.index == .value)
        #expect(try query(["orderBy": #""$priority""#])?.index == .priority)
        #expect(try query(["orderBy": #""a/b""#])?.index == .child(DatabasePath("a/b")))
        #expect(try query(["orderBy": #""height""#])?.loadsAllData == true)
    }

    @Test func readsBoundsWithOptionalKeys() throws {
        let ranged = try #require(try query(["orderBy": #""score""#, "startAt": #"5,"k""#, "endAt": #""a,b""#]))
        #expect(ranged.start == DatabaseQuery.Bound(value: 5, name: "k"))
        #expect(ranged.end == DatabaseQuery.Bound(value: "a,b"))
        let commas = try #require(try query(["orderBy": #""score""#, "startAt": #""a,b","c,d""#]))
        #expect(commas.start == DatabaseQuery.Bound(value: "a,b", name: "c,d"))
        let exclusive = try #require(try query(["orderBy": #""$key""#, "startAfter": #""b""#, "endBefore": #""x""#]))
        #expect(exclusive.start == DatabaseQuery.Bound(value: "b", inclusive: false))
        #expect(exclusive.end == DatabaseQuery.Bound(value: "x", inclusive: false))
        let flags = try #require(try query(["orderBy": #""$value""#, "startAt": "true", "endAt": "null"]))
        #expect(flags.start?.value == true)
        #expect(flags.end?.value == .null)
    }

    @Test func equalToBoundsBothEnds() throws {
        let query = try #require(try query(["orderBy": #""dinosaur""#, "equalTo": "25"]))
        #expect(query.start == DatabaseQuery.Bound(value: 25))
        #expect(query.end == DatabaseQuery.Bound(value: 25))
    }

    @Test func readsLimits() throws {
        let first = try #require(try query(["orderBy": #""$key""#, "limitToFirst": "2"]))
        #expect(first.limit == 2 && first.limitFromLeft)
        let last = try #require(try query(["orderBy": #""$key""#, "limitToLast": "3"]))
        #expect(last.limit == 3 && !last.limitFromLeft)
    }

    @Test func refusesWithProductionMessages() {
        #expect(message(["limitToFirst": "1"]) == "orderBy must be defined when other query parameters are defined")
        #expect(message(["equalTo": "1"]) == "orderBy must be defined when other query parameters are defined")
        #expect(message(["orderBy": "$key"]) == "orderBy must be a valid JSON encoded path")
        #expect(message(["orderBy": "5"]) == "orderBy must be a valid JSON encoded path")
        #expect(message(["orderBy": #""a.b""#]) == "orderBy must be a valid JSON encoded path")
        #expect(message(["orderBy": #""x""#, "startAt": "{}"]) == "Constraint index field must be a JSON primitive")
        #expect(message(["orderBy": #""x""#, "equalTo": "abc"]) == "Constraint index field must be a JSON primitive")
        #expect(message(["orderBy": #""$key""#, "startAt": "5"]) == "Provided key index type is invalid, must be string")
        #expect(message(["orderBy": #""x""#, "limitToFirst": "1", "limitToLast": "1"])
            == "Only one of limitToFirst and limitToLast may be specified")
        #expect(message(["orderBy": #""x""#, "limitToFirst": "0"]) == "limitToFirst must be positive")
        #expect(message(["orderBy": #""x""#, "limitToLast": "-2"]) == "limitToLast must be positive")
        #expect(message(["orderBy": #""x""#, "limitToLast": "two"]) == "limitToLast must be an integer")
        #expect(message(["orderBy": #""x""#, "equalTo": "1", "startAt": "1"])
            == "equalTo cannot be specified in addition to startAfter, startAt, endAt, or endBefore")
    }
}
