/// rules.Path: `p[i]` (a segment) and `==` are operators; `path(text)` is a conversion.
extension Stdlib {
    /// Methods of rules.Path.
    static let pathMethods: [String: Method<RulePath>] = [
        // bind(map): fills segments written as `$(name)` or `{name}` (as `path()` can produce them from
        // text) with the map's values, which must all be strings (the official engine fails a map with any
        // other value, used or not); other segments stay as they are.
        "bind": Method(1...1) { path, arguments throws(RuleError) in
            var bindings: [String: String] = [:]
            for (name, value) in try arguments.map(0) {
                guard case .string(let text) = value else {
                    throw RuleError(.typeMismatch, "cannot bind a \(value.typeName) into a path")
                }
                bindings[name] = text
            }
            return .path(RulePath(segments: path.segments.map { segment in bindingName(segment).flatMap { bindings[$0] } ?? segment }))
        },
    ]

    /// `name` for a segment `$(name)` or `{name}`.
    private static func bindingName(_ segment: String) -> String? {
        if segment.hasPrefix("$("), segment.hasSuffix(")"), segment.count > 3 { return String(segment.dropFirst(2).dropLast()) }
        if segment.hasPrefix("{"), segment.hasSuffix("}"), segment.count > 2 { return String(segment.dropFirst().dropLast()) }
        return nil
    }
}
