/// rules.Path: `p[i]` (a segment) and `==` are operators; `path(text)` is a conversion.
extension Stdlib {
    /// Methods of rules.Path.
    static let pathMethods: [String: Method<RulePath>] = [
        // bind(map): fills segments written as `$(name)` or `{name}` (as `path()` can produce them from
        // text) with the map's string or int values; other segments stay as they are.
        "bind": Method(1...1) { path, arguments throws(RuleError) in
            let bindings = try arguments.map(0)
            var segments: [String] = []
            for segment in path.segments {
                guard let name = bindingName(segment), let value = bindings[name] else {
                    segments.append(segment)
                    continue
                }
                switch value {
                case .string(let text): segments.append(text)
                case .int(let number): segments.append(String(number))
                default: throw RuleError(.typeMismatch, "cannot bind a \(value.typeName) into a path")
                }
            }
            return .path(RulePath(segments: segments))
        },
    ]

    /// `name` for a segment `$(name)` or `{name}`.
    private static func bindingName(_ segment: String) -> String? {
        if segment.hasPrefix("$("), segment.hasSuffix(")"), segment.count > 3 { return String(segment.dropFirst(2).dropLast()) }
        if segment.hasPrefix("{"), segment.hasSuffix("}"), segment.count > 2 { return String(segment.dropFirst().dropLast()) }
        return nil
    }
}
