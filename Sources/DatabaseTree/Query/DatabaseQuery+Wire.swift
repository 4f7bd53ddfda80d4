import EmulatorCore

/// The wire protocol's query object (`q` of a listen, unlisten or get): `i` index (`.key`, `.value` or a
/// child path; absent: priority), `sp`/`sn`/`sin` start value, name and inclusiveness, `ep`/`en`/`ein` the
/// same for the end, `l` limit and `vf` the side it counts from (`l` left, `r` right).
extension DatabaseQuery {
    /// The query of a `q` object; `nil`, `null` or `{}` is `.all`. Unknown keys are ignored. Throws for
    /// keys of the wrong type, a bound that is not a JSON primitive (a string for `.key`), a negative limit.
    package init(wire: JSONValue?) throws(InvalidQuery) {
        self.init()
        guard let wire, wire != .null else { return }
        guard case .object(let members) = wire else {
            throw InvalidQuery(message: "Invalid query: expected an object, got \(wire.serialized())")
        }
        if let index = members["i"] { self.index = try Self.wireIndex(index) }
        if let value = members["sp"] {
            start = try bound(value: value, name: members["sn"], inclusive: members["sin"], keys: ("sp", "sn", "sin"))
            if members["sin"] == nil { omittedKeys.insert(.startInclusive) }
        } else if members["sn"] != nil {
            throw InvalidQuery(message: "Invalid query: \"sn\" without \"sp\"")
        }
        if let value = members["ep"] {
            end = try bound(value: value, name: members["en"], inclusive: members["ein"], keys: ("ep", "en", "ein"))
            if members["ein"] == nil { omittedKeys.insert(.endInclusive) }
        } else if members["en"] != nil {
            throw InvalidQuery(message: "Invalid query: \"en\" without \"ep\"")
        }
        if let count = members["l"] {
            guard let value = count.intValue, value >= 0, value <= Int64(Int32.max) else {
                throw InvalidQuery(message: "Invalid query: \"l\" must be a non-negative integer, got \(count.serialized())")
            }
            limit = Int(value)
            switch members["vf"] {
            case .string("l"): limitFromLeft = true
            case .string("r"): limitFromLeft = false
            case nil:
                // The legacy `limit()`: anchored at the start when only a start is set, else at the end.
                limitFromLeft = start != nil
                omittedKeys.insert(.viewFrom)
            case let other?:
                throw InvalidQuery(message: "Invalid query: \"vf\" must be \"l\" or \"r\", got \(other.serialized())")
            }
        }
    }

    /// The `q` object of this query, with the keys the client sent (`{}` for `.all`): what pushes, cancels
    /// and unlistens of the query carry, and its identity.
    package var wireJSON: JSONValue {
        var object: [String: JSONValue] = [:]
        if let start {
            object["sp"] = start.value
            if let name = start.name { object["sn"] = .string(name) }
            if !start.inclusive || !omittedKeys.contains(.startInclusive) { object["sin"] = .bool(start.inclusive) }
        }
        if let end {
            object["ep"] = end.value
            if let name = end.name { object["en"] = .string(name) }
            if !end.inclusive || !omittedKeys.contains(.endInclusive) { object["ein"] = .bool(end.inclusive) }
        }
        if let limit {
            object["l"] = .int(Int64(limit))
            if !omittedKeys.contains(.viewFrom) { object["vf"] = .string(limitFromLeft ? "l" : "r") }
        }
        switch index {
        case .priority: break
        case .key: object["i"] = ".key"
        case .value: object["i"] = ".value"
        case .child(let path): object["i"] = .string(path.wire)
        }
        return .object(object)
    }

    /// The index `i` names: `.key`, `.value`, `.priority` or a child path.
    private static func wireIndex(_ json: JSONValue) throws(InvalidQuery) -> Index {
        guard case .string(let text) = json else {
            throw InvalidQuery(message: "Invalid query: \"i\" must be a string, got \(json.serialized())")
        }
        switch text {
        case ".key": return .key
        case ".value": return .value
        case ".priority": return .priority
        default:
            let path = DatabasePath(text)
            guard !path.isRoot, path.invalidKey == nil else {
                throw InvalidQuery(message: "Invalid query: \"i\" must be .key, .value, .priority or a child path, got \"\(text)\"")
            }
            return .child(path)
        }
    }

    /// A bound from its `sp`/`ep`, `sn`/`en` and `sin`/`ein` members.
    private func bound(
        value: JSONValue, name: JSONValue?, inclusive: JSONValue?, keys: (value: String, name: String, inclusive: String)
    ) throws(InvalidQuery) -> Bound {
        guard IndexedValue(bound: value) != nil else {
            throw InvalidQuery(message: "Invalid query: \"\(keys.value)\" must be a JSON primitive, got \(value.serialized())")
        }
        if case .key = index, value.stringValue == nil {
            throw InvalidQuery(message: "Invalid query: \"\(keys.value)\" must be a string when ordering by key")
        }
        var bound = Bound(value: value)
        switch name {
        case nil, .null?: break
        case .string(let text)?: bound.name = text
        case let other?:
            throw InvalidQuery(message: "Invalid query: \"\(keys.name)\" must be a string, got \(other.serialized())")
        }
        switch inclusive {
        case nil: break
        case .bool(let flag)?: bound.inclusive = flag
        case let other?:
            throw InvalidQuery(message: "Invalid query: \"\(keys.inclusive)\" must be a boolean, got \(other.serialized())")
        }
        return bound
    }
}
