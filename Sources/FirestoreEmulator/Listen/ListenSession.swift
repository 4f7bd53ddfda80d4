import EmulatorCore

/// The server side of one listen stream as a value-type state machine: targets in, `ListenEvent`s out,
/// with no I/O. The transport feeds it the client's requests and the store's commits (in commit order) and
/// sends back what it returns.
///
/// It keeps, per target, the documents the client has been told match (with their update times), so every
/// commit produces exactly the changes the SDKs' watch logic expects, followed by one global snapshot.
struct ListenSession: Sendable {
    private struct TargetState: Sendable {
        var target: ListenTarget
        /// The documents the client was told match, with the update time it saw.
        var matching: [DocumentPath: Timestamp]
        /// The read time of the results the target started with: commits at or before it are in them.
        var since: Timestamp
        /// The query's filter prepared once, for matching each changed document.
        var plan: QueryPlan?
    }

    private var targets: [Int32: TargetState] = [:]
    /// The read time of the last snapshot sent; snapshots never go back in time.
    private(set) var lastReadTime: Timestamp?

    /// The ids of the active targets.
    var targetIDs: [Int32] { targets.keys.sorted() }

    /// What a resumed target matched at its resume time, when the store still keeps that time.
    struct Resumed: Sendable {
        /// The documents the target matched then.
        var previous: [Document]
        /// Those of them that no longer exist.
        var deleted: Set<DocumentPath>
    }

    /// Adds `target` with its current `results` at `readTime`: ADD, a change per document, CURRENT, then a
    /// snapshot. A resumed target gets what changed since `resumed` (the changed documents, those that
    /// left, then an existence filter with the count, as production does), or RESET and the full state
    /// when its resume time is no longer known. A `once` target is removed again right after. Re-adding an
    /// active id replaces it.
    mutating func add(
        _ target: ListenTarget, results: [Document], readTime: Timestamp, in database: DatabaseName,
        resumed: Resumed? = nil
    ) -> [ListenEvent] {
        var events: [ListenEvent] = [.targetChange(.add, targetIDs: [target.id])]
        var seen: [DocumentPath: Timestamp] = [:]
        if let resumed {
            for document in resumed.previous { seen[document.path] = document.updateTime }
        } else if target.resume != .none {
            events.append(.targetChange(.reset, targetIDs: [target.id]))
        }
        var matching: [DocumentPath: Timestamp] = [:]
        for document in results {
            matching[document.path] = document.updateTime
            if seen[document.path] != document.updateTime {
                events.append(.documentChange(document, targetIDs: [target.id], removedTargetIDs: []))
            }
        }
        let time = max(readTime, lastReadTime ?? readTime)
        if let resumed {
            for path in resumed.previous.map(\.path) where matching[path] == nil {
                events.append(
                    resumed.deleted.contains(path)
                        ? .documentDelete(path, removedTargetIDs: [target.id], readTime: time)
                        : .documentRemove(path, removedTargetIDs: [target.id], readTime: time))
            }
            events.append(.existenceFilter(targetID: target.id, count: Int32(clamping: results.count)))
        }
        events.append(.targetChange(.current, targetIDs: [target.id], resumeToken: time.resumeToken))
        events.append(snapshot(at: time))
        if target.once {
            events.append(.targetChange(.remove, targetIDs: [target.id]))
        } else {
            var plan: QueryPlan?
            if case .query(let query) = target.kind { plan = QueryPlan(query, in: database) }
            targets[target.id] = TargetState(target: target, matching: matching, since: readTime, plan: plan)
        }
        return events
    }

    /// Refuses `targetID` (rules denied it): ADD, then REMOVE with the error as its cause; the stream stays.
    mutating func refuse(_ targetID: Int32, because error: APIError) -> [ListenEvent] {
        targets[targetID] = nil
        return [.targetChange(.add, targetIDs: [targetID]), .targetChange(.remove, targetIDs: [targetID], cause: error)]
    }

    /// Removes `targetID`: exactly one REMOVE, whether or not it was active.
    mutating func remove(_ targetID: Int32) -> [ListenEvent] {
        targets[targetID] = nil
        return [.targetChange(.remove, targetIDs: [targetID])]
    }

    /// The events for one commit: for each changed document, which targets it now matches and which it
    /// left, then one snapshot at `commitTime` if anything was sent. `rerun` gives the current results of a
    /// target whose membership depends on other documents (limit, offset, cursors).
    mutating func apply(
        _ changes: [(path: DocumentPath, before: Document?, after: Document?)], at commitTime: Timestamp,
        in database: DatabaseName, rerun: (ListenTarget) throws(APIError) -> [Document]
    ) throws(APIError) -> [ListenEvent] {
        var added: [DocumentPath: (document: Document, targets: [Int32])] = [:]
        var removed: [DocumentPath: (deleted: Bool, targets: [Int32])] = [:]
        for id in targets.keys.sorted() {
            // Taken out while it changes, so its documents are not copied.
            guard var state = targets.removeValue(forKey: id) else { continue }
            let relevant = commitTime > state.since ? changes.filter { state.target.scopes($0.path) } : []
            guard !relevant.isEmpty else {
                targets[id] = state
                continue
            }
            var now: [DocumentPath: Document] = [:]
            if state.target.isDecidedPerDocument {
                for change in relevant {
                    if let after = change.after, state.plan?.matches(after) ?? state.target.scopes(after.path) {
                        now[change.path] = after
                    }
                }
                for change in relevant where now[change.path] == nil && state.matching[change.path] != nil {
                    removed[change.path, default: (change.after == nil, [])].targets.append(id)
                    state.matching[change.path] = nil
                }
            } else {
                let results = try rerun(state.target)
                for document in results { now[document.path] = document }
                let deletedPaths = Set(relevant.filter { $0.after == nil }.map(\.path))
                for path in state.matching.keys where now[path] == nil {
                    removed[path, default: (deletedPaths.contains(path), [])].targets.append(id)
                    state.matching[path] = nil
                }
            }
            for (path, document) in now where state.matching[path] != document.updateTime {
                added[path, default: (document, [])].targets.append(id)
                state.matching[path] = document.updateTime
            }
            targets[id] = state
        }
        guard !added.isEmpty || !removed.isEmpty else { return [] }
        var events: [ListenEvent] = []
        for path in Set(added.keys).union(removed.keys).sorted() {
            let leaving = removed[path]
            if let (document, ids) = added[path] {
                events.append(.documentChange(document, targetIDs: ids, removedTargetIDs: leaving?.targets ?? []))
            } else if let leaving, leaving.deleted {
                events.append(.documentDelete(path, removedTargetIDs: leaving.targets, readTime: commitTime))
            } else if let leaving {
                events.append(.documentRemove(path, removedTargetIDs: leaving.targets, readTime: commitTime))
            }
        }
        events.append(snapshot(at: commitTime))
        return events
    }

    /// A global consistent snapshot (empty target ids, a read time, a resume token).
    private mutating func snapshot(at time: Timestamp) -> ListenEvent {
        let time = max(time, lastReadTime ?? time)
        lastReadTime = time
        return .targetChange(.noChange, targetIDs: [], resumeToken: time.resumeToken, readTime: time)
    }
}
