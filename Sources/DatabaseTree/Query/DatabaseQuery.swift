import EmulatorCore

/// What a listen, a `get` or a REST read selects below its location: an index to order children by, an
/// optional range over that index and an optional limit from either end (the SDKs' `QueryParams`).
///
/// Parsed from the wire protocol's `q` object (`DatabaseQuery+Wire`) or the REST query parameters
/// (`DatabaseQuery+REST`); applied to a node by `select(from:)` and `window(of:)` (`DatabaseQuery+Select`).
package struct DatabaseQuery: Sendable, Hashable {
    /// What children are ordered by.
    package enum Index: Sendable, Hashable {
        /// The children's priorities (no priority first, then numbers, then strings); the default.
        case priority
        /// The children's keys (`orderByKey`).
        case key
        /// The children's values (`orderByValue`).
        case value
        /// The value at a path below each child (`orderByChild`); missing is `null`.
        case child(DatabasePath)
    }

    /// One end of the range: an index value and an optional key to break ties at that value.
    package struct Bound: Sendable, Hashable {
        /// The index value: a JSON primitive or `null` (for `.key`, the key itself as a string).
        package var value: JSONValue
        /// The key at `value` the range starts or ends at; `nil` is before the first (start) or after the
        /// last (end) key at that value. Ignored for `.key`.
        package var name: String?
        /// `false` for `startAfter` / `endBefore`.
        package var inclusive: Bool

        /// A bound at `value` (and `name`).
        package init(value: JSONValue, name: String? = nil, inclusive: Bool = true) {
            self.value = value
            self.name = name
            self.inclusive = inclusive
        }
    }

    /// The keys of the `q` object that applied but that the client left out, so that `wireJSON` gives back
    /// the object it sent (the SDKs match echoes by the object's text).
    struct OmittedKeys: OptionSet, Sendable, Hashable {
        let rawValue: UInt8
        /// `sin` (SDKs before `startAfter`).
        static let startInclusive = OmittedKeys(rawValue: 1)
        /// `ein` (SDKs before `endBefore`).
        static let endInclusive = OmittedKeys(rawValue: 2)
        /// `vf` (the legacy `limit()`).
        static let viewFrom = OmittedKeys(rawValue: 4)
    }

    /// What children are ordered by.
    package var index: Index
    /// Where the range starts (`startAt`, `startAfter`, `equalTo`); `nil`: at the first child.
    package var start: Bound?
    /// Where the range ends (`endAt`, `endBefore`, `equalTo`); `nil`: at the last child.
    package var end: Bound?
    /// How many children of the range to keep.
    package var limit: Int?
    /// Whether the limit keeps the first children of the range (`limitToFirst`, `vf: "l"`) rather than the
    /// last (`limitToLast`, `vf: "r"`).
    package var limitFromLeft: Bool
    /// Keys the client's `q` object left out.
    var omittedKeys: OmittedKeys = []

    /// A query; the defaults are the default query (`.all`).
    package init(
        index: Index = .priority, start: Bound? = nil, end: Bound? = nil, limit: Int? = nil, limitFromLeft: Bool = true
    ) {
        self.index = index
        self.start = start
        self.end = end
        self.limit = limit
        self.limitFromLeft = limitFromLeft
    }

    /// The default query: priority order, no range, no limit (a listen without `q`).
    package static let all = DatabaseQuery()

    /// Whether the query loads everything (no range, no limit): its window is the whole node. The SDKs send
    /// such listens without `q` and tag.
    package var loadsAllData: Bool { start == nil && end == nil && limit == nil }
}
