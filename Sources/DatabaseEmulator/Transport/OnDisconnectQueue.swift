import DatabaseTree
import EmulatorCore

/// A connection's onDisconnect operations (`o`, `om`), in the order registered, with `oc` cancelling what
/// is at a path and below, including that part of an operation registered higher up.
struct OnDisconnectQueue: Sendable {
    /// The writes to make when the connection goes away, in order.
    private(set) var writes: [WriteRequest] = []

    /// Adds a write.
    mutating func append(_ write: WriteRequest) {
        writes.append(write)
    }

    /// Cancels everything at `path` and below. An operation registered higher up keeps its other parts and
    /// no longer touches `path`: it becomes an update of its remaining children, as the SDKs' own
    /// onDisconnect tree does.
    mutating func cancel(at path: DatabasePath) {
        writes = writes.compactMap { write in
            switch write {
            case .set(let at, let json):
                if path.contains(at) { return nil }
                guard let relative = at.relative(path), json.isContainer else { return write }
                let entries = Self.splitting(json, around: relative.keys[...])
                return entries.isEmpty ? nil : .update(at, entries)
            case .update(let at, let entries):
                let kept = entries.flatMap { (relative, json) -> [(DatabasePath, JSONValue)] in
                    let full = at.appending(relative)
                    if path.contains(full) { return [] }
                    guard let inner = full.relative(path), json.isContainer else { return [(relative, json)] }
                    return Self.splitting(json, around: inner.keys[...]).map { (relative.appending($0.0), $0.1) }
                }
                return kept.isEmpty ? nil : .update(at, kept)
            }
        }
    }

    /// Forgets every operation.
    mutating func removeAll() {
        writes.removeAll()
    }

    /// The members of `json` as separate writes by relative path, leaving out the one at `keys`.
    static func splitting(_ json: JSONValue, around keys: ArraySlice<String>) -> [(DatabasePath, JSONValue)] {
        guard let first = keys.first else { return [] }
        var entries: [(DatabasePath, JSONValue)] = []
        for (key, member) in json.members {
            if key != first {
                entries.append((DatabasePath(keys: [key]), member))
            } else if keys.count > 1, member.isContainer {
                entries += splitting(member, around: keys.dropFirst()).map { (DatabasePath(keys: [key]).appending($0.0), $0.1) }
            } else if keys.count > 1 {
                entries.append((DatabasePath(keys: [key]), member))
            }
        }
        return entries
    }
}

extension JSONValue {
    /// Whether this is an object or an array.
    fileprivate var isContainer: Bool {
        switch self {
        case .object, .array: return true
        default: return false
        }
    }

    /// The members of an object, or an array's elements keyed by index.
    fileprivate var members: [(String, JSONValue)] {
        switch self {
        case .object(let object): return object.map { ($0.key, $0.value) }
        case .array(let array): return array.enumerated().map { (String($0.offset), $0.element) }
        default: return []
        }
    }
}
