/// rules.Set: unordered unique elements, made with `List.toSet()`; `in` and `==` are operators.
extension Stdlib {
    /// Methods of rules.Set. The `has...` tests take a set or a list; the set algebra takes sets.
    static let setMethods: [String: Method<RuleSet>] = [
        "size": Method { set, _ in .int(Int64(set.count)) },
        "hasAll": Method(1...1) { set, arguments throws(RuleError) in
            .bool(try arguments.setOrList(0).elements.allSatisfy(set.contains))
        },
        "hasAny": Method(1...1) { set, arguments throws(RuleError) in
            .bool(try arguments.setOrList(0).elements.contains(where: set.contains))
        },
        "hasOnly": Method(1...1) { set, arguments throws(RuleError) in
            let allowed = try arguments.setOrList(0)
            return .bool(set.elements.allSatisfy(allowed.contains))
        },
        // The elements of this set that are not in the argument.
        "difference": Method(1...1) { set, arguments throws(RuleError) in
            let other = try arguments.set(0)
            return .set(RuleSet(set.elements.filter { !other.contains($0) }))
        },
        "intersection": Method(1...1) { set, arguments throws(RuleError) in
            let other = try arguments.set(0)
            return .set(RuleSet(set.elements.filter(other.contains)))
        },
        "union": Method(1...1) { set, arguments throws(RuleError) in
            .set(RuleSet(set.elements + (try arguments.set(0)).elements))
        },
    ]
}
