/// rules.Map (string keys; `m.k`, `m['k']` and `'k' in m` are operators) and rules.MapDiff.
///
/// `keys()`, `values()` and the key sets of a diff list keys in code-point order, so results do not
/// depend on how a map happens to be stored.
extension Stdlib {
    /// Methods of rules.Map.
    static let mapMethods: [String: Method<[String: RuleValue]>] = [
        "size": Method { map, _ in .int(Int64(map.count)) },
        "keys": Method { map, _ in .list(sortedKeys(map.keys).map(RuleValue.string)) },
        "values": Method { map, _ in .list(sortedKeys(map.keys).map { map[$0]! }) },
        "diff": Method(1...1) { map, arguments throws(RuleError) in
            .mapDiff(MapDiff(left: map, right: try arguments.map(0)))
        },
        // get(key, default): a string key, or a list of keys walking into nested maps; the default when
        // any step is missing or not a map.
        "get": Method(2...2) { map, arguments throws(RuleError) in
            let keys: [String]
            switch arguments[0] {
            case .string(let key): keys = [key]
            case .list(let list) where !list.isEmpty:
                keys = try list.map { (element: RuleValue) throws(RuleError) -> String in
                    guard case .string(let key) = element else { throw arguments.mismatch }
                    return key
                }
            default: throw arguments.mismatch
            }
            var current = RuleValue.map(map)
            for key in keys {
                guard case .map(let level) = current, let next = level[key] else { return arguments[1] }
                current = next
            }
            return current
        },
    ]

    /// Methods of rules.MapDiff, `left.diff(right)`; each returns a set of keys.
    static let mapDiffMethods: [String: Method<MapDiff>] = [
        // Keys in the map diff() was called on but not in its argument.
        "addedKeys": Method { diff, _ in keySet(diff.left.keys.filter { diff.right[$0] == nil }) },
        // Keys in the argument but not in the map diff() was called on.
        "removedKeys": Method { diff, _ in keySet(diff.right.keys.filter { diff.left[$0] == nil }) },
        // Keys in both whose values differ.
        "changedKeys": Method { diff, _ in
            keySet(diff.left.keys.filter { key in diff.right[key] != nil && diff.right[key] != diff.left[key] })
        },
        "unchangedKeys": Method { diff, _ in keySet(diff.left.keys.filter { key in diff.right[key] == diff.left[key] }) },
        "affectedKeys": Method { diff, _ in
            keySet(Set(diff.left.keys).union(diff.right.keys).filter { key in diff.left[key] != diff.right[key] })
        },
    ]

    private static func sortedKeys<Keys: Sequence<String>>(_ keys: Keys) -> [String] {
        keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    private static func keySet<Keys: Sequence<String>>(_ keys: Keys) -> RuleValue {
        .set(RuleSet(sortedKeys(keys).map(RuleValue.string)))
    }
}
