import DatabaseTree
import EmulatorCore

/// What a listen selects below its location, as the SDKs' query methods build it: an order, an optional
/// range over that order and an optional limit from either end. A value; each method returns a changed copy.
///
/// ```swift
/// let latest = DatabaseQuery(orderedBy: .child("sentAt")).limited(toLast: 20)
/// for try await snapshot in database.reference("messages/room1").snapshots(latest) { ... }
/// ```
public struct DatabaseQuery: Sendable, Hashable {
    /// What children are ordered by.
    public enum Order: Sendable, Hashable {
        /// Their priorities (the default).
        case priority
        /// Their keys.
        case key
        /// Their values.
        case value
        /// The value at a path below each child (`a/b`).
        case child(String)
    }

    /// The query as the database models it.
    private(set) var selection: DatabaseTree.DatabaseQuery

    /// All children, ordered by `order`.
    public init(orderedBy order: Order = .priority) {
        let index: DatabaseTree.DatabaseQuery.Index
        switch order {
        case .priority: index = .priority
        case .key: index = .key
        case .value: index = .value
        case .child(let path): index = .child(DatabasePath(path))
        }
        selection = DatabaseTree.DatabaseQuery(index: index)
    }

    /// Only the first `count` children in order (`limitToFirst`).
    public func limited(toFirst count: Int) -> DatabaseQuery {
        changed { $0.limit = count; $0.limitFromLeft = true }
    }

    /// Only the last `count` children in order (`limitToLast`).
    public func limited(toLast count: Int) -> DatabaseQuery {
        changed { $0.limit = count; $0.limitFromLeft = false }
    }

    /// Children from `value` on (`startAt`); with `childKey`, from that key among those at `value`.
    public func starting(atValue value: JSONValue, childKey: String? = nil) -> DatabaseQuery {
        changed { $0.start = .init(value: value, name: childKey) }
    }

    /// Children up to `value` (`endAt`); with `childKey`, up to that key among those at `value`.
    public func ending(atValue value: JSONValue, childKey: String? = nil) -> DatabaseQuery {
        changed { $0.end = .init(value: value, name: childKey) }
    }

    /// Children at `value` (`equalTo`); with `childKey`, only that key.
    public func equal(toValue value: JSONValue, childKey: String? = nil) -> DatabaseQuery {
        starting(atValue: value, childKey: childKey).ending(atValue: value, childKey: childKey)
    }

    private func changed(_ change: (inout DatabaseTree.DatabaseQuery) -> Void) -> DatabaseQuery {
        var copy = self
        change(&copy.selection)
        return copy
    }
}
