import EmulatorCore

/// Server value placeholders in written data, resolved by the server before it stores and broadcasts:
/// `{".sv": "timestamp"}` is the server's time in milliseconds, `{".sv": {"increment": n}}` the number
/// already at that spot plus `n` (just `n` when there is no number there). Placeholders may stand for a
/// value or a priority (`.priority`), at any depth.
package enum ServerValues {
    /// `json`, about to be written where `existing` is now, with its placeholders resolved (`now` in epoch
    /// milliseconds). A nested placeholder increments the number at its own spot below `existing`.
    /// `path` (the write's location) only serves error messages. Throws for an unknown placeholder.
    package static func resolve(
        _ json: JSONValue, existing: DataNode, now: Int64, path: DatabasePath = .root
    ) throws(InvalidData) -> JSONValue {
        guard containsPlaceholder(json) else { return json }
        return try resolve(json, existing: existing, now: now, path: path.keys)
    }

    /// Whether `json` holds a placeholder anywhere (an object with a `.sv` member).
    package static func containsPlaceholder(_ json: JSONValue) -> Bool {
        switch json {
        case .object(let members):
            return members[".sv"] != nil || members.values.contains(where: containsPlaceholder)
        case .array(let elements):
            return elements.contains(where: containsPlaceholder)
        default:
            return false
        }
    }

    private static func resolve(
        _ json: JSONValue, existing: DataNode, now: Int64, path: [String]
    ) throws(InvalidData) -> JSONValue {
        switch json {
        case .object(var members):
            if let placeholder = members[".sv"] {
                if let sibling = members.keys.first(where: { $0 != ".sv" && $0 != ".priority" }) {
                    throw InvalidData(message: "Invalid data at \(describe(path)): \".sv\" cannot have a sibling \"\(sibling)\"")
                }
                let value = try value(of: placeholder, existing: existing.leaf, now: now, path: path)
                guard let priority = members[".priority"] else { return value }
                let resolved = try resolve(priority, existing: existing.child(".priority"), now: now, path: path)
                return [".value": value, ".priority": resolved]
            }
            for (key, member) in members where containsPlaceholder(member) {
                // `.value` holds this node's own value; `.priority` the priority, a child for placeholders.
                let below = key == ".value" ? existing : existing.child(key)
                members[key] = try resolve(member, existing: below, now: now, path: key == ".value" ? path : path + [key])
            }
            return .object(members)
        case .array(var elements):
            for (index, element) in elements.enumerated() where containsPlaceholder(element) {
                let key = String(index)
                elements[index] = try resolve(element, existing: existing.child(key), now: now, path: path + [key])
            }
            return .array(elements)
        default:
            return json
        }
    }

    /// The value a placeholder (the member of `.sv`) stands for, `existing` being the leaf at its spot.
    private static func value(
        of placeholder: JSONValue, existing: LeafValue?, now: Int64, path: [String]
    ) throws(InvalidData) -> JSONValue {
        switch placeholder {
        case .string("timestamp"):
            return .int(now)
        case .object(let operation) where operation.count == 1:
            guard let delta = operation["increment"]?.doubleValue else { break }
            // Double arithmetic, as the database keeps numbers.
            guard case .number(let current)? = existing else { return LeafValue.number(delta).json }
            return LeafValue.number(current + delta).json
        default:
            break
        }
        throw InvalidData(message: "Invalid data at \(describe(path)): unknown server value \(placeholder.serialized())")
    }

    private static func describe(_ path: [String]) -> String { "/" + path.joined(separator: "/") }
}
