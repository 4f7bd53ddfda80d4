import EmulatorCore
import HashTreeCollections
import Testing

import DatabaseTree

@Suite struct DatabaseQuerySelectTests {
    private func node(_ json: String) throws -> DataNode { try DataNode(json: try JSONValue.parse(json)) }

    private func keys(_ query: DatabaseQuery, _ node: DataNode) -> [String] { query.select(from: node).map(\.key) }

    private func wire(_ json: String) throws -> DatabaseQuery { try DatabaseQuery(wire: try JSONValue.parse(json)) }

    @Test func priorityOrderPutsNoPriorityFirstThenNumbersThenStrings() throws {
        let data = try node("""
            {"a": {".value": 1, ".priority": "b"}, "b": {".value": 1, ".priority": 2}, "c": 1,
             "d": {".value": 1, ".priority": "a"}, "e": {".value": 1, ".priority": -1}, "f": {"x": 1, ".priority": 2}}
            """)
        #expect(keys(.all, data) == ["c", "e", "b", "f", "d", "a"])
        #expect(keys(try wire(#"{"sp":2,"ep":"a"}"#), data) == ["b", "f", "d"])
        #expect(keys(try wire(#"{"sp":null,"ep":null}"#), data) == ["c"])
    }

    @Test func valueOrderAcrossTypes() throws {
        let data = try node(#"{"a":"x","b":2,"c":true,"d":false,"e":{"z":1},"f":1.5,"g":"a","h":2,"i":"B"}"#)
        let byValue = DatabaseQuery(index: .value)
        #expect(keys(byValue, data) == ["d", "c", "f", "b", "h", "i", "g", "a", "e"])
        #expect(keys(DatabaseQuery(index: .value, start: .init(value: 2), end: .init(value: "a")), data) == ["b", "h", "i", "g"])
        #expect(keys(DatabaseQuery(index: .value, start: .init(value: true), end: .init(value: .double(1.5))), data) == ["c", "f"])
        #expect(keys(DatabaseQuery(index: .value, start: .init(value: "x")), data) == ["a", "e"])
    }

    @Test func childOrderWithNestedPathsAndMissingValues() throws {
        let data = try node("""
            {"p1": {"a": {"b": 3}}, "p2": {"a": {"b": "x"}}, "p3": {"a": 1}, "p4": {"a": {"b": 1}}, "p5": 7,
             "p6": {"a": {"b": {"c": 1}}}, "p0": {"a": {"b": 3}}}
            """)
        let query = try wire(#"{"i":"a/b"}"#)
        #expect(keys(query, data) == ["p3", "p5", "p4", "p0", "p1", "p2", "p6"])
        #expect(keys(try wire(#"{"i":"a/b","sp":null,"ep":null}"#), data) == ["p3", "p5"])
        #expect(keys(try wire(#"{"i":"a/b","sp":3,"sn":"p1","l":5,"vf":"l"}"#), data) == ["p1", "p2", "p6"])
        #expect(query.compare(("p4", data.child("p4")), ("p0", data.child("p0"))) < 0)
    }

    @Test func keyOrderWithIntegerKeys() throws {
        let data = try node(#"{"10":1,"9":1,"-1":1,"a":1,"007":1,"7":1,"b":1}"#)
        let byKey = try wire(#"{"i":".key"}"#)
        #expect(keys(byKey, data) == ["-1", "7", "007", "9", "10", "a", "b"])
        #expect(keys(try wire(#"{"i":".key","sp":"9","ep":"a"}"#), data) == ["9", "10", "a"])
        #expect(keys(try wire(#"{"i":".key","sp":"9","sin":false,"ep":"a","ein":false}"#), data) == ["10"])
        #expect(keys(try wire(#"{"i":".key","l":2,"vf":"r"}"#), data) == ["a", "b"])
    }

    @Test func equalToSelectsOneValueOrOneKeyAtIt() throws {
        let data = try node(#"{"a":{"n":1},"b":{"n":2},"c":{"n":2},"d":{"n":3}}"#)
        #expect(keys(try wire(#"{"i":"n","sp":2,"sin":true,"ep":2,"ein":true}"#), data) == ["b", "c"])
        #expect(keys(try wire(#"{"i":"n","sp":2,"sn":"c","sin":true,"ep":2,"en":"c","ein":true}"#), data) == ["c"])
    }

    @Test func startAfterAndEndBeforeSkipTheWholeValueOrOneKey() throws {
        let data = try node(#"{"a":{"n":1},"b":{"n":2},"c":{"n":2},"d":{"n":3}}"#)
        // What the JS SDK sends for startAfter(2) / endBefore(2), and the same without the sentinel names.
        #expect(keys(try wire(#"{"i":"n","sp":2,"sn":"[MAX_NAME]","sin":false}"#), data) == ["d"])
        #expect(keys(try wire(#"{"i":"n","sp":2,"sin":false}"#), data) == ["d"])
        #expect(keys(try wire(#"{"i":"n","ep":2,"en":"[MIN_NAME]","ein":false}"#), data) == ["a"])
        #expect(keys(try wire(#"{"i":"n","ep":2,"ein":false}"#), data) == ["a"])
        // startAfter(2, "b") / endBefore(2, "c")
        #expect(keys(try wire(#"{"i":"n","sp":2,"sn":"b","sin":false}"#), data) == ["c", "d"])
        #expect(keys(try wire(#"{"i":"n","ep":2,"en":"c","ein":false}"#), data) == ["a", "b"])
    }

    @Test func limitsCountFromEitherEndOfTheRange() throws {
        let data = try node(#"{"a":1,"b":2,"c":3,"d":4,"e":5}"#)
        #expect(keys(try wire(#"{"i":".value","l":2,"vf":"l"}"#), data) == ["a", "b"])
        #expect(keys(try wire(#"{"i":".value","l":2,"vf":"r"}"#), data) == ["d", "e"])
        #expect(keys(try wire(#"{"i":".value","ep":4,"l":2,"vf":"r"}"#), data) == ["c", "d"])
        #expect(keys(try wire(#"{"i":".value","sp":2,"l":10,"vf":"l"}"#), data) == ["b", "c", "d", "e"])
        #expect(keys(try wire(#"{"i":".value","l":0,"vf":"l"}"#), data).isEmpty)
    }

    @Test func smallLimitsOverLargeNodesAgreeWithAFullSort() throws {
        var generator = SystemRandomNumberGenerator()
        var children: DataNode.Children = [:]
        for index in 0..<500 {
            let value: LeafValue = switch index % 3 {
            case 0: .number(Double(Int.random(in: 0..<50, using: &generator)))
            case 1: .string(String(Int.random(in: 0..<50, using: &generator)))
            default: .bool(Bool.random(using: &generator))
            }
            children[index % 7 == 0 ? String(index) : "k\(index)"] = DataNode(value)
        }
        let data = DataNode(children: children)
        let sorted = DatabaseQuery(index: .value).select(from: data).map(\.key)
        for limit in [1, 3, 10, 60, 499, 600] {
            let first = DatabaseQuery(index: .value, limit: limit, limitFromLeft: true)
            let last = DatabaseQuery(index: .value, limit: limit, limitFromLeft: false)
            #expect(keys(first, data) == Array(sorted.prefix(limit)))
            #expect(keys(last, data) == Array(sorted.suffix(limit)))
        }
        for (a, b) in zip(sorted, sorted.dropFirst()) {
            #expect(DatabaseQuery(index: .value).compare((a, data.child(a)), (b, data.child(b))) < 0)
        }
    }

    @Test func leavesAndEmptyNodesSelectNothing() throws {
        let query = try wire(#"{"l":1,"vf":"l"}"#)
        #expect(query.select(from: DataNode(.string("x"))).isEmpty)
        #expect(query.select(from: .empty).isEmpty)
        #expect(query.window(of: DataNode(.string("x"))).isEmpty)
        #expect(DatabaseQuery.all.window(of: DataNode(.string("x"))) == DataNode(.string("x")))
    }

    @Test func windowKeepsChildPrioritiesAndDropsItsOwn() throws {
        let data = try node(#"{".priority":9,"a":{".value":1,".priority":3},"b":2,"c":3}"#)
        let window = try wire(#"{"i":".value","l":2,"vf":"l"}"#).window(of: data)
        #expect(window.exportJSON == (try JSONValue.parse(#"{"a":{".value":1,".priority":3},"b":2}"#)))
        #expect(DatabaseQuery(index: .value).window(of: data) == data)
        #expect(try wire(#"{"i":".value","sp":3}"#).window(of: data).exportJSON == ["c": 3])
    }

    /// A child index, built once and then kept current by updates, selects what a pass over the node does,
    /// for random nodes, ranges (with and without names, inclusive or not) and limits from either end.
    @Test func aChildIndexKeptCurrentSelectsWhatAPassOverTheNodeDoes() {
        var random = SystemRandomNumberGenerator()
        let keys = (0..<60).map { $0 % 9 == 0 ? String($0) : "k\($0)" }
        func value() -> DataNode {
            switch Int.random(in: 0..<6, using: &random) {
            case 0: return .empty
            case 1: return DataNode(.number(Double(Int.random(in: 0..<8, using: &random))))
            case 2: return DataNode(.string(["a", "b", "c"].randomElement(using: &random)!))
            case 3: return DataNode(.bool(Bool.random(using: &random)))
            case 4: return DataNode(children: ["score": DataNode(.number(Double(Int.random(in: 0..<8, using: &random))))])
            default: return DataNode(children: ["score": DataNode(.string(["a", "b"].randomElement(using: &random)!)), "x": DataNode(.bool(true))])
            }
        }
        func bound() -> DatabaseQuery.Bound? {
            let values: [JSONValue] = [.int(2), .int(5), .string("b"), .bool(false), .null]
            guard Bool.random(using: &random) else { return nil }
            return DatabaseQuery.Bound(
                value: values.randomElement(using: &random)!, name: Bool.random(using: &random) ? keys.randomElement(using: &random) : nil,
                inclusive: Bool.random(using: &random))
        }
        var mismatches = 0
        for _ in 0..<200 {
            var node = DataNode.empty
            for key in keys { node.setChild(key, to: value()) }
            let index: DatabaseQuery.Index = [.child(DatabasePath(keys: ["score"])), .value, .key, .priority].randomElement(using: &random)!
            var childIndex = ChildIndex(of: node, by: index)
            for _ in 0..<20 {
                for _ in 0..<Int.random(in: 0..<4, using: &random) {
                    let key = keys.randomElement(using: &random)!
                    var new = value()
                    if !new.isEmpty, Bool.random(using: &random) { new.setPriority(.number(Double(Int.random(in: 0..<3, using: &random)))) }
                    childIndex.update(key, from: node.child(key), to: new)
                    node.setChild(key, to: new)
                }
                let query = DatabaseQuery(
                    index: index, start: bound(), end: bound(), limit: Bool.random(using: &random) ? Int.random(in: 0...6, using: &random) : nil,
                    limitFromLeft: Bool.random(using: &random))
                let expected = query.window(of: node)
                let actual = query.window(of: node, using: childIndex)
                if actual != expected {
                    mismatches += 1
                    Issue.record("\(query): expected \(expected.children.keys.sorted()), got \(actual.children.keys.sorted())")
                    if mismatches > 5 { return }
                }
            }
            #expect(childIndex.count == node.childCount)
        }
    }
}
