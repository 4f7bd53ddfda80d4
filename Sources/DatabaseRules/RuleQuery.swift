import EmulatorCore

/// The query a read asks for, as `.read` rules see it in `query`: `query.orderByChild == 'score' &&
/// query.limitToFirst <= 10`. A plain read (no query) has every field unset but `orderByKey`, true whenever no
/// other order is asked for.
package struct RuleQuery: Sendable, Equatable {
    /// `orderByKey()`.
    package var orderByKey: Bool
    /// `orderByPriority()`.
    package var orderByPriority: Bool
    /// `orderByValue()`.
    package var orderByValue: Bool
    /// `orderByChild(path)`'s path.
    package var orderByChild: String?
    /// `startAt(value)`'s value.
    package var startAt: JSONValue?
    /// `endAt(value)`'s value.
    package var endAt: JSONValue?
    /// `equalTo(value)`'s value.
    package var equalTo: JSONValue?
    /// `limitToFirst(n)`.
    package var limitToFirst: Int?
    /// `limitToLast(n)`.
    package var limitToLast: Int?

    /// A query; every field defaults to unset.
    package init(
        orderByKey: Bool = false, orderByPriority: Bool = false, orderByValue: Bool = false,
        orderByChild: String? = nil, startAt: JSONValue? = nil, endAt: JSONValue? = nil, equalTo: JSONValue? = nil,
        limitToFirst: Int? = nil, limitToLast: Int? = nil
    ) {
        self.orderByKey = orderByKey
        self.orderByPriority = orderByPriority
        self.orderByValue = orderByValue
        self.orderByChild = orderByChild
        self.startAt = startAt
        self.endAt = endAt
        self.equalTo = equalTo
        self.limitToFirst = limitToFirst
        self.limitToLast = limitToLast
    }

    /// The members `query` has in rules.
    static let fields: Set<String> = [
        "orderByKey", "orderByPriority", "orderByValue", "orderByChild",
        "startAt", "endAt", "equalTo", "limitToFirst", "limitToLast",
    ]

    /// `query.name` in a rule.
    func field(_ name: String) -> DatabaseRuleValue {
        switch name {
        // Without another order a read is ordered by key: the live service says `query.orderByKey == true`
        // for a plain read (goldibex/targaryen's recorded cases).
        case "orderByKey": .bool(orderByKey || (orderByChild == nil && !orderByValue && !orderByPriority))
        case "orderByPriority": .bool(orderByPriority)
        case "orderByValue": .bool(orderByValue)
        case "orderByChild": orderByChild.map(DatabaseRuleValue.string) ?? .null
        case "startAt": startAt.map(DatabaseRuleValue.init(json:)) ?? .null
        case "endAt": endAt.map(DatabaseRuleValue.init(json:)) ?? .null
        case "equalTo": equalTo.map(DatabaseRuleValue.init(json:)) ?? .null
        case "limitToFirst": limitToFirst.map { .number(Double($0)) } ?? .null
        case "limitToLast": limitToLast.map { .number(Double($0)) } ?? .null
        default: .null
        }
    }
}
