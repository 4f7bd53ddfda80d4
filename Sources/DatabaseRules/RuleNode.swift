/// The rules at one level of the rules tree: its `.read`, `.write`, `.validate` and `.indexOn`, its named
/// children and its `$wildcard` child. Immutable once compiled.
final class RuleNode: Sendable {
    /// A `$name` child: it applies to every key without a named child of its own.
    struct Wildcard: Sendable {
        var name: String
        var node: RuleNode
    }

    let read: Rule?
    let write: Rule?
    let validate: Rule?
    let indexOn: [String]
    let children: [String: RuleNode]
    let wildcard: Wildcard?

    init(
        read: Rule?, write: Rule?, validate: Rule?, indexOn: [String],
        children: [String: RuleNode], wildcard: Wildcard?
    ) {
        self.read = read
        self.write = write
        self.validate = validate
        self.indexOn = indexOn
        self.children = children
        self.wildcard = wildcard
    }

    /// The rules for the child `key`: its named child, else the wildcard (which never matches `.priority`).
    func child(_ key: String) -> RuleNode? {
        if let named = children[key] { return named }
        return key.hasPrefix(".") ? nil : wildcard?.node
    }
}
