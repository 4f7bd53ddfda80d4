import EmulatorCore

/// The REST API's query parameters (`GET /path.json?orderBy="height"&startAt=3&limitToFirst=2`): values
/// are JSON-encoded; a bound may add `,` and a JSON-encoded key (`startAt=3,"b"`), as the SDKs' REST
/// clients send them.
extension DatabaseQuery {
    /// The parameters that make a REST request a query.
    package static let restParameterNames: Set<String> = [
        "orderBy", "startAt", "startAfter", "endAt", "endBefore", "equalTo", "limitToFirst", "limitToLast",
    ]

    /// The query of a REST request's (decoded) parameters; `nil` when it has none of the query
    /// parameters. Throws with production's `error` texts.
    package init?(restParameters parameters: [String: String]) throws(InvalidQuery) {
        guard parameters.keys.contains(where: Self.restParameterNames.contains) else { return nil }
        guard let orderBy = parameters["orderBy"] else {
            throw InvalidQuery(message: "orderBy must be defined when other query parameters are defined")
        }
        self.init(index: try Self.restIndex(orderBy))

        if parameters["limitToFirst"] != nil && parameters["limitToLast"] != nil {
            throw InvalidQuery(message: "Only one of limitToFirst and limitToLast may be specified")
        }
        if let text = parameters["limitToFirst"] {
            limit = try Self.restLimit(text, name: "limitToFirst")
        } else if let text = parameters["limitToLast"] {
            limit = try Self.restLimit(text, name: "limitToLast")
            limitFromLeft = false
        }

        if let text = parameters["equalTo"] {
            if ["startAt", "startAfter", "endAt", "endBefore"].contains(where: { parameters[$0] != nil }) {
                throw InvalidQuery(
                    message: "equalTo cannot be specified in addition to startAfter, startAt, endAt, or endBefore")
            }
            let bound = try restBound(text)
            start = bound
            end = bound
            return
        }
        if parameters["startAt"] != nil && parameters["startAfter"] != nil {
            throw InvalidQuery(message: "startAt cannot be specified in addition to startAfter")
        }
        if parameters["endAt"] != nil && parameters["endBefore"] != nil {
            throw InvalidQuery(message: "endAt cannot be specified in addition to endBefore")
        }
        if let text = parameters["startAt"] ?? parameters["startAfter"] {
            start = try restBound(text)
            start?.inclusive = parameters["startAt"] != nil
        }
        if let text = parameters["endAt"] ?? parameters["endBefore"] {
            end = try restBound(text)
            end?.inclusive = parameters["endAt"] != nil
        }
    }

    /// The index an `orderBy` value names: `"$key"`, `"$value"`, `"$priority"` or a child path, JSON-encoded.
    private static func restIndex(_ text: String) throws(InvalidQuery) -> Index {
        guard case .string(let name)? = try? JSONValue.parse(text) else {
            throw InvalidQuery(message: "orderBy must be a valid JSON encoded path")
        }
        switch name {
        case "$key": return .key
        case "$value": return .value
        case "$priority": return .priority
        default:
            let path = DatabasePath(name)
            guard !path.isRoot, path.invalidKey == nil else {
                throw InvalidQuery(message: "orderBy must be a valid JSON encoded path")
            }
            return .child(path)
        }
    }

    /// A `limitToFirst` / `limitToLast` value: a positive integer.
    private static func restLimit(_ text: String, name: String) throws(InvalidQuery) -> Int {
        guard !text.isEmpty else { throw InvalidQuery(message: "\(name) must be positive") }
        guard let value = (try? JSONValue.parse(text))?.intValue, value <= Int64(Int32.max) else {
            throw InvalidQuery(message: "\(name) must be an integer")
        }
        guard value > 0 else { throw InvalidQuery(message: "\(name) must be positive") }
        return Int(value)
    }

    /// A bound: a JSON primitive, optionally followed by `,` and a JSON string key (ignored for `$key`).
    private func restBound(_ text: String) throws(InvalidQuery) -> Bound {
        var parsed: (value: JSONValue, name: String?)?
        if let value = try? JSONValue.parse(text) {
            parsed = (value, nil)
        } else {
            // The value itself may hold commas (`"a,b","k"`): try each comma until both sides parse.
            var index = text.startIndex
            while parsed == nil, let comma = text[index...].firstIndex(of: ",") {
                if let value = try? JSONValue.parse(String(text[..<comma])),
                    case .string(let name)? = try? JSONValue.parse(String(text[text.index(after: comma)...]))
                {
                    parsed = (value, name)
                }
                index = text.index(after: comma)
            }
        }
        guard let parsed, IndexedValue(bound: parsed.value) != nil else {
            throw InvalidQuery(message: "Constraint index field must be a JSON primitive")
        }
        if case .key = index {
            guard parsed.value.stringValue != nil else {
                throw InvalidQuery(message: "Provided key index type is invalid, must be string")
            }
            return Bound(value: parsed.value)
        }
        return Bound(value: parsed.value, name: parsed.name)
    }
}
