import DatabaseTree
import EmulatorCore

/// A write as clients send it: a set (`p`, PUT, POST) or a multi-location update (`m`, PATCH), with JSON
/// that may hold server value placeholders.
enum WriteRequest: Sendable {
    /// Replace the node at the path (null deletes).
    case set(DatabasePath, JSONValue)
    /// Replace the nodes at each path relative to the first (null deletes each).
    case update(DatabasePath, [(DatabasePath, JSONValue)])

    /// Where the write happens (for an update: the common parent).
    var path: DatabasePath {
        switch self {
        case .set(let path, _), .update(let path, _): return path
        }
    }

    /// An update from a JSON object whose keys are relative paths (`a/b`); fails unless it is an object,
    /// or when one of its paths contains another.
    static func update(at path: DatabasePath, members: JSONValue) throws(DatabaseError) -> WriteRequest {
        guard case .object(let object) = members else {
            throw .invalid("Invalid data; couldn't parse JSON object. An update must be a JSON object.")
        }
        let entries = object.map { (DatabasePath($0.key), $0.value) }
            .sorted { $0.0.keys.lexicographicallyPrecedes($1.0.keys) }
        // Sorted this way, an ancestor comes right before its first descendant.
        for (index, entry) in entries.enumerated() {
            if entry.0.isRoot { throw .invalid("Invalid data; an update path must not be empty") }
            if index > 0, entries[index - 1].0.contains(entry.0) {
                throw .invalid(
                    "Invalid data; path \(entries[index - 1].0) is an ancestor of \(entry.0) in the same update")
            }
        }
        return .update(path, entries)
    }
}
