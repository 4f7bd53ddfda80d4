/// rules.List: heterogeneous, compared element-wise; `in`, `[i]` and `[i:j]` are operators.
extension Stdlib {
    /// Methods of rules.List. Element tests take identical elements (`[1].hasAll([1.0])` is false), as the
    /// official engine does.
    static let listMethods: [String: Method<[RuleValue]>] = [
        "size": Method { list, _ in .int(Int64(list.count)) },
        "concat": Method(1...1) { list, arguments throws(RuleError) in .list(list + (try arguments.list(0))) },
        // Every element of the argument is in the list.
        "hasAll": Method(1...1) { list, arguments throws(RuleError) in
            .bool(try arguments.list(0).allSatisfy { contains(list, $0) })
        },
        // Some element of the argument is in the list.
        "hasAny": Method(1...1) { list, arguments throws(RuleError) in
            .bool(try arguments.list(0).contains { contains(list, $0) })
        },
        // Every element of the list is in the argument (repeats allowed on either side).
        "hasOnly": Method(1...1) { list, arguments throws(RuleError) in
            let allowed = try arguments.list(0)
            return .bool(list.allSatisfy { contains(allowed, $0) })
        },
        // The elements as `string()` writes them (strings as they are), between separators; a list, map
        // or other value without a string form is an error.
        "join": Method(1...1) { list, arguments throws(RuleError) in
            let separator = try arguments.string(0)
            var parts: [String] = []
            for element in list {
                switch element {
                case .string(let part): parts.append(part)
                case .null, .bool, .int, .float: parts.append(element.description)
                default: throw RuleError(.typeMismatch, "join needs a list of strings, found \(element.typeName)")
                }
            }
            return .string(parts.joined(separator: separator))
        },
        // The list without any element of the argument.
        "removeAll": Method(1...1) { list, arguments throws(RuleError) in
            let removed = try arguments.list(0)
            return .list(list.filter { !contains(removed, $0) })
        },
        "toSet": Method { list, _ in .set(RuleSet(list)) },
    ]

    /// Whether `list` has an element identical to `element`: list membership, for `in` and the methods.
    static func contains(_ list: [RuleValue], _ element: RuleValue) -> Bool {
        list.contains { $0.isIdentical(to: element) }
    }
}
