import DatabaseRules
import DatabaseTree

extension RuleQuery {
    /// `query.*` for a read with `query`; `nil` for a plain read of the whole location.
    init?(_ query: DatabaseQuery) {
        guard query != .all else { return nil }
        self.init()
        switch query.index {
        case .priority: orderByPriority = true
        case .key: orderByKey = true
        case .value: orderByValue = true
        case .child(let path): orderByChild = path.wire
        }
        if let start = query.start, let end = query.end, start.inclusive, end.inclusive, start.value == end.value {
            equalTo = start.value
        } else {
            startAt = query.start?.value
            endAt = query.end?.value
        }
        if let limit = query.limit {
            if query.limitFromLeft { limitToFirst = limit } else { limitToLast = limit }
        }
    }
}
