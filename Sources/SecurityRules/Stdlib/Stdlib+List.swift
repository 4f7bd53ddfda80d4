/// rules.List: heterogeneous, compared element-wise; `in`, `[i]` and `[i:j]` are operators.
extension Stdlib {
    /// Methods of rules.List. Element tests use value equality (so `1` matches `1.0`).
    static let listMethods: [String: Method<[RuleValue]>] = [
        "size": Method { list, _ in .int(Int64(list.count)) },
        "concat": Method(1...1) { list, arguments throws(RuleError) in .list(list + (try arguments.list(0))) },
        // Every element of the argument is in the list.
        "hasAll": Method(1...1) { list, arguments throws(RuleError) in
            let members = RuleSet(list)
            return .bool(try arguments.list(0).allSatisfy(members.contains))
        },
        // Some element of the argument is in the list.
        "hasAny": Method(1...1) { list, arguments throws(RuleError) in
            let members = RuleSet(list)
            return .bool(try arguments.list(0).contains(where: members.contains))
        },
        // Every element of the list is in the argument (repeats allowed on either side).
        "hasOnly": Method(1...1) { list, arguments throws(RuleError) in
            let allowed = RuleSet(try arguments.list(0))
            return .bool(list.allSatisfy(allowed.contains))
        },
        "join": Method(1...1) { list, arguments throws(RuleError) in
            let separator = try arguments.string(0)
            var parts: [String] = []
            for element in list {
                guard case .string(let part) = element else {
                    throw RuleError(.typeMismatch, "join needs a list of strings, found \(element.typeName)")
                }
                parts.append(part)
            }
            return .string(parts.joined(separator: separator))
        },
        // The list without any element of the argument.
        "removeAll": Method(1...1) { list, arguments throws(RuleError) in
            let removed = RuleSet(try arguments.list(0))
            return .list(list.filter { !removed.contains($0) })
        },
        "toSet": Method { list, _ in .set(RuleSet(list)) },
    ]
}
