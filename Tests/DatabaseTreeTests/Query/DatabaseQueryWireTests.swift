import EmulatorCore
import Testing

import DatabaseTree

@Suite struct DatabaseQueryWireTests {
    @Test func noObjectIsTheDefaultQuery() throws {
        #expect(try DatabaseQuery(wire: nil) == .all)
        #expect(try DatabaseQuery(wire: .null) == .all)
        #expect(try DatabaseQuery(wire: [:]) == .all)
        #expect(DatabaseQuery.all.wireJSON == [:])
        #expect(DatabaseQuery.all.loadsAllData)
    }

    @Test func readsEveryKeyAndGivesTheObjectBack() throws {
        let wire = try JSONValue.parse(#"{"i":"age","sp":3,"sn":"b","sin":true,"ep":10,"ein":false,"l":2,"vf":"r"}"#)
        let query = try DatabaseQuery(wire: wire)
        #expect(query.index == .child(DatabasePath("age")))
        #expect(query.start == DatabaseQuery.Bound(value: 3, name: "b", inclusive: true))
        #expect(query.end == DatabaseQuery.Bound(value: 10, name: nil, inclusive: false))
        #expect(query.limit == 2)
        #expect(!query.limitFromLeft)
        #expect(!query.loadsAllData)
        #expect(query.wireJSON == wire)
    }

    @Test func readsIndexes() throws {
        #expect(try DatabaseQuery(wire: ["i": ".key"]).index == .key)
        #expect(try DatabaseQuery(wire: ["i": ".value"]).index == .value)
        #expect(try DatabaseQuery(wire: ["i": ".priority"]).index == .priority)
        #expect(try DatabaseQuery(wire: ["i": "a/b"]).index == .child(DatabasePath(keys: ["a", "b"])))
        #expect(try DatabaseQuery(wire: ["i": "a/b"]).loadsAllData)
        #expect(try DatabaseQuery(wire: ["i": "a/b"]).wireJSON == ["i": "a/b"])
    }

    @Test func equalToIsAStartAndAnEndAtTheSameValueAndKey() throws {
        let query = try DatabaseQuery(wire: ["i": ".value", "sp": "x", "sn": "k", "sin": true, "ep": "x", "en": "k", "ein": true])
        #expect(query.start == query.end)
        #expect(query.start == DatabaseQuery.Bound(value: "x", name: "k"))
    }

    @Test func startAfterAndEndBeforeAreExclusive() throws {
        let query = try DatabaseQuery(wire: ["sp": 1, "sn": "[MAX_NAME]", "sin": false, "ep": 5, "en": "[MIN_NAME]", "ein": false])
        #expect(query.start?.inclusive == false)
        #expect(query.end?.inclusive == false)
        #expect(query.start?.name == "[MAX_NAME]")
    }

    @Test func olderObjectsWithoutInclusivenessOrViewFromEchoAsSent() throws {
        let fromStart = try JSONValue.parse(#"{"sp":1,"l":5}"#)
        let startQuery = try DatabaseQuery(wire: fromStart)
        #expect(startQuery.start?.inclusive == true)
        #expect(startQuery.limitFromLeft)  // the legacy limit() anchors at the start when only it is set
        #expect(startQuery.wireJSON == fromStart)

        let fromEnd = try JSONValue.parse(#"{"ep":1,"l":5}"#)
        let endQuery = try DatabaseQuery(wire: fromEnd)
        #expect(!endQuery.limitFromLeft)
        #expect(endQuery.wireJSON == fromEnd)
        #expect(endQuery != (try DatabaseQuery(wire: try JSONValue.parse(#"{"ep":1,"ein":true,"l":5,"vf":"r"}"#))))
    }

    @Test func nullBoundsAreBounds() throws {
        let wire: JSONValue = ["i": "a", "sp": nil, "sin": true, "l": 1, "vf": "l"]
        let query = try DatabaseQuery(wire: wire)
        #expect(query.start == DatabaseQuery.Bound(value: nil))
        #expect(query.wireJSON == wire)
    }

    @Test func refusesMalformedObjects() {
        for wire: JSONValue in [
            "q", ["i": 1], ["i": ""], ["i": "a.b"], ["sp": ["x": 1]], ["sp": [1]], ["i": ".key", "sp": 1],
            ["sp": 1, "sn": 2], ["sp": 1, "sin": "yes"], ["sn": "a"], ["l": -1], ["l": .double(1.5)], ["l": "3"],
            ["l": 1, "vf": "x"],
        ] {
            #expect(throws: InvalidQuery.self, "\(wire.serialized())") { try DatabaseQuery(wire: wire) }
        }
    }

    @Test func builtQueriesSendWhatTheModernSDKsSend() {
        let query = DatabaseQuery(index: .key, start: .init(value: "a"), limit: 3, limitFromLeft: false)
        #expect(query.wireJSON == ["i": ".key", "sp": "a", "sin": true, "l": 3, "vf": "r"])
    }
}
