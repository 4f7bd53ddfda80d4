import DatabaseTree
import EmulatorCore

/// The data at a database location at one moment, as a listen or a read saw it.
public struct DataSnapshot: Sendable {
    /// The data, with priorities.
    let node: DataNode
    let location: DatabasePath
    /// The order `children` lists the children in.
    let order: DatabaseTree.DatabaseQuery.Index

    init(node: DataNode, at location: DatabasePath, order: DatabaseTree.DatabaseQuery.Index = .priority) {
        self.node = node
        self.location = location
        self.order = order
    }

    /// The last key of the location; nil at the root.
    public var key: String? { location.last }

    /// The location, `/a/b` (the root is `/`).
    public var path: String { location.description }

    /// The data as the SDKs' `val()` gives it: `null` when there is none, no priorities, and children whose
    /// keys are mostly array indices as an array.
    public var value: JSONValue { node.valueJSON }

    /// Whether there is data at the location.
    public var exists: Bool { !node.isEmpty }

    /// The snapshot of the data at `path` below this one (`a` or `a/b`).
    public func child(_ path: String) -> DataSnapshot {
        let relative = DatabasePath(path)
        return DataSnapshot(node: node.node(at: relative), at: location.appending(relative))
    }

    /// The snapshots of the children, in the order of the query that produced this snapshot (by priority,
    /// then key, without one).
    public var children: [DataSnapshot] {
        DatabaseTree.DatabaseQuery(index: order).select(from: node).map {
            DataSnapshot(node: $0.node, at: location.child($0.key))
        }
    }
}
