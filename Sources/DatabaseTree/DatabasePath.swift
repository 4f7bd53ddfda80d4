/// A location in a database: its keys from the root (`/` is no keys). Parsed from `/a/b`, `a/b/` or `a//b`
/// alike, as the SDKs and the REST API do.
package struct DatabasePath: Sendable, Hashable, CustomStringConvertible {
    /// The keys, root first.
    package var keys: [String]

    /// The root.
    package static let root = DatabasePath(keys: [])

    /// The deepest a path in a database may go: 32 keys, as production allows.
    package static let maximumDepth = 32

    /// A path from its keys.
    package init(keys: [String]) {
        self.keys = keys
    }

    /// A path from its text; empty segments are skipped. Keys are not validated here (see `validated()`).
    package init(_ text: some StringProtocol) {
        keys = text.split(separator: "/" as Character, omittingEmptySubsequences: true).map { String($0) }
    }

    /// Whether this is the root.
    package var isRoot: Bool { keys.isEmpty }

    /// The last key, if not the root.
    package var last: String? { keys.last }

    /// The parent; the root's parent is the root.
    package var parent: DatabasePath { DatabasePath(keys: Array(keys.dropLast())) }

    /// This path with `key` appended.
    package func child(_ key: String) -> DatabasePath { DatabasePath(keys: keys + [key]) }

    /// This path followed by `other`.
    package func appending(_ other: DatabasePath) -> DatabasePath { DatabasePath(keys: keys + other.keys) }

    /// Whether `other` is this path or below it.
    package func contains(_ other: DatabasePath) -> Bool {
        other.keys.count >= keys.count && other.keys.starts(with: keys)
    }

    /// `other` relative to this path, when this path contains it.
    package func relative(_ other: DatabasePath) -> DatabasePath? {
        guard contains(other) else { return nil }
        return DatabasePath(keys: Array(other.keys.dropFirst(keys.count)))
    }

    /// `/a/b` (the root is `/`).
    package var description: String { "/" + keys.joined(separator: "/") }

    /// `a/b` (the root is the empty string), as wire protocol pushes carry it.
    package var wire: String { keys.joined(separator: "/") }
}

extension DatabasePath {
    /// The characters a key may not contain (besides control characters): `.`, `$`, `#`, `[`, `]`, `/`.
    package static let forbiddenKeyCharacters: Set<Character> = [".", "$", "#", "[", "]", "/"]

    /// Whether `key` may name a child: non-empty, at most 768 UTF-8 bytes, none of `. $ # [ ] /` and no
    /// ASCII control character.
    package static func isValidKey(_ key: String) -> Bool {
        guard !key.isEmpty, key.utf8.count <= 768 else { return false }
        for scalar in key.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F { return false }
            if forbiddenKeyCharacters.contains(Character(scalar)) { return false }
        }
        return true
    }

    /// The first key that may not name a child; `.priority` may end a path (`setPriority()` writes there),
    /// `.info` may start one (the SDKs' local tree, never stored).
    package var invalidKey: String? {
        for (index, key) in keys.enumerated() where !Self.isValidKey(key) {
            if key == ".priority" && index == keys.count - 1 { continue }
            if key == ".info" && index == 0 { continue }
            return key
        }
        return nil
    }
}
