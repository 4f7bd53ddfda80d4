import EmulatorCore
import HashTreeCollections

/// Data that cannot be stored: a bad key, a bad priority, an unresolved placeholder.
package struct InvalidData: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, as the REST API's `error` and the wire protocol's failure text.
    package var message: String

    /// Data refused with `message`.
    package init(message: String) {
        self.message = message
    }

    /// The message.
    package var description: String { message }
}

extension DataNode {
    /// Reads JSON in the Realtime Database's "export format": `null` is empty, arrays are children keyed by
    /// index, `.priority` sets the priority and `.value` holds a leaf that has one. Server value
    /// placeholders (`.sv`) must have been resolved (`ServerValues`). Throws `InvalidData` for keys the
    /// database refuses (`.`, `$`, `#`, `[`, `]`, `/`, control characters, empty) and bad priorities.
    package init(json: JSONValue) throws(InvalidData) {
        self = try Self.parse(json, path: [])
    }

    private static func parse(_ json: JSONValue, path: [String]) throws(InvalidData) -> DataNode {
        switch json {
        case .null: return .empty
        case .bool(let value): return DataNode(.bool(value))
        case .int(let value): return DataNode(.number(Double(value)))
        case .double(let value): return DataNode(.number(value))
        case .string(let value): return DataNode(.string(value))
        case .array(let elements):
            var children: DataNode.Children = [:]
            for (index, element) in elements.enumerated() {
                let child = try parse(element, path: path + [String(index)])
                if !child.isEmpty { children[String(index)] = child }
            }
            return DataNode(children: children)
        case .object(let members):
            let priority = try members[".priority"].flatMap { json throws(InvalidData) in
                try parsePriority(json, path: path)
            }
            if let value = members[".value"] {
                if let extra = members.keys.first(where: { $0 != ".value" && $0 != ".priority" }) {
                    throw InvalidData(message: "Invalid data at \(describe(path)): \".value\" cannot have a sibling \"\(extra)\"")
                }
                var node = try parse(value, path: path)
                node.setPriority(priority)
                return node
            }
            var children: DataNode.Children = [:]
            for (key, member) in members where key != ".priority" {
                if key == ".sv" {
                    throw InvalidData(message: "Invalid data at \(describe(path)): unknown server value \(member.serialized())")
                }
                guard DatabasePath.isValidKey(key) else {
                    throw InvalidData(message: invalidKeyMessage(key, path: path))
                }
                let child = try parse(member, path: path + [key])
                if !child.isEmpty { children[key] = child }
            }
            return DataNode(children: children, priority: priority)
        }
    }

    private static func parsePriority(_ json: JSONValue, path: [String]) throws(InvalidData) -> LeafValue? {
        switch json {
        case .null: return nil
        case .int(let value): return .number(Double(value))
        case .double(let value): return .number(value)
        case .string(let value): return .string(value)
        default:
            throw InvalidData(
                message: "Invalid data at \(describe(path)): a priority must be a string, a number or null")
        }
    }

    /// The message for a key the database refuses.
    package static func invalidKeyMessage(_ key: String, path: [String]) -> String {
        "Invalid data; couldn't parse key \"\(key)\" at \(describe(path)): keys must be non-empty and must not "
            + "contain \".\", \"#\", \"$\", \"/\", \"[\", \"]\" or control characters"
    }

    private static func describe(_ path: [String]) -> String { "/" + path.joined(separator: "/") }

    /// The node in export format: priorities as `.priority`, a leaf with a priority as
    /// `{".value": v, ".priority": p}`; what `format=export` and the wire protocol send.
    package var exportJSON: JSONValue {
        switch content {
        case .leaf(let value):
            guard let priority else { return value.json }
            return .object([".value": value.json, ".priority": priority.json])
        case .children(let children):
            if children.isEmpty { return .null }
            var object = [String: JSONValue](minimumCapacity: children.count + 1)
            for (key, child) in children { object[key] = child.exportJSON }
            if let priority { object[".priority"] = priority.json }
            return .object(object)
        }
    }

    /// The node as `val()` sees it: no priorities, and children whose keys are all array indices (and fill
    /// more than half of the range) as an array, as the REST API and the SDKs render them.
    package var valueJSON: JSONValue {
        switch content {
        case .leaf(let value): return value.json
        case .children(let children):
            if children.isEmpty { return .null }
            var maxIndex = -1
            var allIndices = true
            for key in children.keys {
                guard let index = Self.arrayIndex(key) else {
                    allIndices = false
                    break
                }
                maxIndex = max(maxIndex, index)
            }
            if allIndices && maxIndex < 2 * children.count {
                var array = [JSONValue](repeating: .null, count: maxIndex + 1)
                for (key, child) in children { array[Self.arrayIndex(key)!] = child.valueJSON }
                return .array(array)
            }
            var object = [String: JSONValue](minimumCapacity: children.count)
            for (key, child) in children { object[key] = child.valueJSON }
            return .object(object)
        }
    }

    /// The index a key names when it is `0` or a decimal without leading zeros.
    private static func arrayIndex(_ key: String) -> Int? {
        guard let first = key.utf8.first, key.utf8.count <= 9 else { return nil }
        guard first != UInt8(ascii: "0") || key.utf8.count == 1 else { return nil }
        guard key.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(key)
    }
}

extension LeafValue {
    /// The value as JSON: integral numbers up to 2^53 as integers.
    package var json: JSONValue {
        switch self {
        case .bool(let value): return .bool(value)
        case .string(let value): return .string(value)
        case .number(let value):
            if value.rounded() == value, abs(value) <= 9_007_199_254_740_992 { return .int(Int64(value)) }
            return .double(value)
        }
    }

    /// A leaf from JSON, for primitives.
    package init?(json: JSONValue) {
        switch json {
        case .bool(let value): self = .bool(value)
        case .int(let value): self = .number(Double(value))
        case .double(let value): self = .number(value)
        case .string(let value): self = .string(value)
        default: return nil
        }
    }
}
