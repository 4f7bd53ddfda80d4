import DatabaseRules
import DatabaseTree
import EmulatorCore
import Testing
import Foundation

@Test func tmpPerf() throws {
    let r = try rules(#"{"presence": {".read": "auth != null", "$uid": {".write": "auth != null && auth.uid == $uid", ".validate": "newData.hasChildren(['online']) && newData.child('online').isBoolean() && auth.token.email.matches(/^[a-z]+@x\\.com$/)"}}}"#)
    var base: [String: JSONValue] = [:]
    for i in 0..<1000 { base["u\(i)"] = ["online": true] }
    let root = tree(["presence": .object(base)])
    let auth = user("u5", token: ["email": "abc@x.com"])
    let start = Date()
    var n = 0
    for _ in 0..<100_000 {
        if r.canSet("/presence/u5", ["online": false, "lastSeen": 5], over: root, auth: auth) { n += 1 }
    }
    print("PERF writes", n, Date().timeIntervalSince(start))
    let s2 = Date()
    for _ in 0..<100_000 { if r.canRead("/presence/u5", root, auth: auth) { n += 1 } }
    print("PERF reads", Date().timeIntervalSince(s2))
}
