import EmulatorCore
import Testing

import DatabaseTree

/// Expected hashes computed with the algorithm by hand: base64(SHA-1(text)) of the texts in each comment.
@Suite struct DataNodeHashTests {
    private func node(_ json: String) throws -> DataNode { try DataNode(json: try JSONValue.parse(json)) }

    @Test func leaves() throws {
        #expect(DataNode.empty.hash == "")
        // "boolean:true"
        #expect(DataNode(.bool(true)).hash == "E5z61QM0lN/U2WsOnusszCTkR8M=")
        // "number:3ff0000000000000"
        #expect(DataNode(.number(1)).hash == "YPVfR2bXt/lcDjiQZ8pOkAd3qkQ=")
        // "priority:number:4014000000000000:string:hello"
        #expect(DataNode(.string("hello"), priority: .number(5)).hash == "MB6C698saJTdyT+q1e3fvBHUPVo=")
        // "string:héllo ✓ 😀" in UTF-8
        #expect(DataNode(.string("héllo ✓ 😀")).hash == "OBbPVZMNqtZ4kYqEFsyPxQzyDEw=")
    }

    @Test func children() throws {
        // ":a:" + hash(1)
        #expect(try node(#"{"a":1}"#).hash == "gIphxiFGusLh2VwSNVKSvNu90m4=")
        // "priority:string:p::x:" + hash("y")
        #expect(try node(#"{".priority":"p","x":"y"}"#).hash == "93B3w9biQvr5Kc7sMAJ353JLzAA=")
        // Keys in key order: ":9:…:10:…:a:…"
        #expect(try node(#"{"a":1,"10":1,"9":1}"#).hash == "evCfROj4O5BuYeBWBzyApN5V/lQ=")
    }

    @Test func childrenInPriorityOrder() throws {
        // ":a:" + hash(2) + ":b:" + hash(1 with priority 1) + ":c:" + hash(true with priority "x")
        let data = try node(#"{"c":{".value":true,".priority":"x"},"b":{".value":1,".priority":1},"a":2}"#)
        #expect(data.hash == "SLnW2OhgHs15m5T3umut803sWZw=")
    }

    @Test func acceptsTheJavaScriptSpellingOfNumbersItGetsWrong() {
        let largest = DataNode(.number(9_007_199_254_740_991))
        #expect(largest.hash == "zP1cy9AKj8mOJfzxsijijNJ8QdY=")  // "number:433fffffffffffff"
        #expect(largest.matchesHash("zP1cy9AKj8mOJfzxsijijNJ8QdY="))
        #expect(largest.matchesHash("m4qsp/5BbIWTdjthNlnOX+WCTB0="))  // "number:4340000000000000", as the JS SDK spells it
        #expect(!largest.matchesHash("YPVfR2bXt/lcDjiQZ8pOkAd3qkQ="))
        #expect(DataNode.empty.matchesHash(""))
    }
}
