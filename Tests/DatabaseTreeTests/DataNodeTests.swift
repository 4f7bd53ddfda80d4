import EmulatorCore
import Testing

import DatabaseTree

@Suite struct DataNodeTests {
    @Test func readsExportFormatAndDropsEmptyObjects() throws {
        let node = try DataNode(json: try JSONValue.parse(#"{"a":{"b":{}},"c":[1,null,3],"d":{".value":"x",".priority":2}}"#))
        #expect(node.child("a").isEmpty)
        #expect(node.child("c").sortedKeys == ["0", "2"])
        #expect(node.child("d").priority == .number(2))
        #expect(node.exportJSON == (try JSONValue.parse(#"{"c":{"0":1,"2":3},"d":{".value":"x",".priority":2}}"#)))
        #expect(node.valueJSON == (try JSONValue.parse(#"{"c":[1,null,3],"d":"x"}"#)))
    }

    @Test func setsDeepAndRemovesEmptiedParents() throws {
        var root = DataNode.empty
        root.set(DataNode(.number(1)), at: DatabasePath("/a/b/c"))
        root.set(DataNode(.string("y")), at: DatabasePath("/a/x"))
        root.set(.empty, at: DatabasePath("/a/b/c"))
        #expect(root.exportJSON == ["a": ["x": "y"]])
        root.set(.empty, at: DatabasePath("a/x"))
        #expect(root.isEmpty)
    }

    @Test func refusesBadKeys() {
        #expect(throws: InvalidData.self) { try DataNode(json: ["a.b": 1]) }
        #expect(throws: InvalidData.self) { try DataNode(json: ["a": ["": 1]]) }
    }

    @Test func ordersIntegerKeysFirst() {
        let keys = ["b", "10", "2", "-1", "a", "002"].sorted(by: KeyOrder.precedes)
        #expect(keys == ["-1", "2", "002", "10", "a", "b"])
    }
}
