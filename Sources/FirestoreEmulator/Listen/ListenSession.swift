import EmulatorCore
import HashTreeCollections

/// The server side of one listen stream as a value-type state machine: targets in, `ListenEvent`s out,
/// with no I/O. The transport feeds it the client's requests and the store's commits (in commit order) and
/// sends back what it returns.
///
/// It keeps, per target, the documents the client has been told match (with their update times), so every
/// commit produces exactly the changes the SDKs' watch logic expects, followed by one global snapshot.
struct ListenSession: Sendable {
    fileprivate struct TargetState: Sendable {
        var target: ListenTarget
        /// The documents the client was told match, with the update time it saw. A hash trie: it never
        /// rehashes as a whole, so the many targets that watch one growing collection do not all pay for a
        /// rehash on the same commit.
        var matching: TreeDictionary<HashedPath, Timestamp>
        /// The read time of the results the target started with: commits at or before it are in them.
        var since: Timestamp
        /// The query's filter prepared once, for matching each changed document.
        var plan: QueryPlan?
        /// Which documents the target can concern.
        var scope: ListenScope
    }

    /// The active targets, by id. An array changed in place: a commit applied to each target never moves
    /// or copies a target's state (a dictionary's optional subscript would, for every target).
    private var targets: [TargetState] = []
    /// The read time of the last snapshot sent; snapshots never go back in time.
    private(set) var lastReadTime: Timestamp?
    /// Added targets whose snapshot waits until the stream has caught up with every commit up to their
    /// read time, oldest first: the snapshot's time, and the id of a `once` target to remove after it.
    private var catchingUp: [(time: Timestamp, once: Int32?)] = []

    /// How many added targets wait for `caughtUp()`.
    var waitingForCatchUp: Int { catchingUp.count }

    /// The ids of the active targets.
    var targetIDs: [Int32] { targets.map(\.target.id) }

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
    ///
    /// `holdingSnapshot`: the results were read at "now", while commits up to `readTime` may still be on
    /// their way to the stream's other targets; a snapshot now would claim those targets were up to date at
    /// `readTime`, and a client resuming from it would miss those commits. So the snapshot (and a `once`
    /// target's removal) waits for `caughtUp()`, which the transport calls once those commits are applied.
    mutating func add(
        _ target: ListenTarget, results: [Document], readTime: Timestamp, in database: DatabaseName,
        resumed: Resumed? = nil, holdingSnapshot: Bool = false
    ) -> [ListenEvent] {
        var events: [ListenEvent] = [.targetChange(.add, targetIDs: [target.id])]
        var seen: [DocumentPath: Timestamp] = [:]
        if let resumed {
            for document in resumed.previous { seen[document.path] = document.updateTime }
        } else if target.resume != .none {
            events.append(.targetChange(.reset, targetIDs: [target.id]))
        }
        var matching: TreeDictionary<HashedPath, Timestamp> = [:]
        for document in results {
            matching[HashedPath(document.path)] = document.updateTime
            if seen[document.path] != document.updateTime {
                events.append(.documentChange(document, targetIDs: [target.id], removedTargetIDs: []))
            }
        }
        let time = max(readTime, lastReadTime ?? readTime)
        if let resumed {
            for path in resumed.previous.map(\.path) where matching[HashedPath(path)] == nil {
                events.append(
                    resumed.deleted.contains(path)
                        ? .documentDelete(path, removedTargetIDs: [target.id], readTime: time)
                        : .documentRemove(path, removedTargetIDs: [target.id], readTime: time))
            }
            events.append(.existenceFilter(targetID: target.id, count: Int32(clamping: results.count)))
        }
        events.append(.targetChange(.current, targetIDs: [target.id], resumeTime: time))
        if holdingSnapshot {
            catchingUp.append((time, target.once ? target.id : nil))
        } else {
            events.append(snapshot(at: time))
            if target.once { events.append(.targetChange(.remove, targetIDs: [target.id])) }
        }
        if !target.once {
            var plan: QueryPlan?
            if case .query(let query) = target.kind { plan = QueryPlan(query, in: database) }
            put(TargetState(target: target, matching: matching, since: readTime, plan: plan, scope: target.scope))
        }
        return events
    }

    /// The held snapshot of the oldest target added with `holdingSnapshot`, now that every commit up to its
    /// read time is applied: the snapshot, unless a later one already went out, then a `once` target's
    /// REMOVE.
    mutating func caughtUp() -> [ListenEvent] {
        guard !catchingUp.isEmpty else { return [] }
        let (time, once) = catchingUp.removeFirst()
        var events: [ListenEvent] = []
        if lastReadTime.map({ $0 < time }) ?? true { events.append(snapshot(at: time)) }
        if let once { events.append(.targetChange(.remove, targetIDs: [once])) }
        return events
    }

    /// Refuses `targetID` (rules denied it): ADD, then REMOVE with the error as its cause; the stream stays.
    mutating func refuse(_ targetID: Int32, because error: FirestoreError) -> [ListenEvent] {
        drop(targetID)
        return [.targetChange(.add, targetIDs: [targetID]), .targetChange(.remove, targetIDs: [targetID], cause: error)]
    }

    /// Removes `targetID`: exactly one REMOVE, whether or not it was active.
    mutating func remove(_ targetID: Int32) -> [ListenEvent] {
        drop(targetID)
        return [.targetChange(.remove, targetIDs: [targetID])]
    }

    /// The events for one commit: for each changed document, which targets it now matches and which it
    /// left, then one snapshot at `commitTime` if anything was sent. `rerun` gives the current results of a
    /// target whose membership depends on other documents (limit, offset, cursors).
    /// `keys`, when given, are the changed paths hashed (`HashedPath`), in order: one commit handed to many
    /// sessions hashes them once.
    mutating func apply(
        _ changes: [(path: DocumentPath, before: Document?, after: Document?)], keys: [HashedPath]? = nil,
        at commitTime: Timestamp, in database: DatabaseName, rerun: (ListenTarget) throws(FirestoreError) -> [Document]
    ) throws(FirestoreError) -> [ListenEvent] {
        var outcome = CommitEffect(changes: changes, keys: keys)
        for index in targets.indices {
            try targets[index].apply(&outcome, at: commitTime, rerun: rerun)
        }
        var events = outcome.events(at: commitTime)
        if !events.isEmpty { events.append(snapshot(at: commitTime)) }
        return events
    }

    /// Adds `state`, or replaces the target with its id, keeping the targets in id order.
    private mutating func put(_ state: TargetState) {
        let id = state.target.id
        let index = targets.firstIndex { $0.target.id >= id } ?? targets.endIndex
        if index < targets.endIndex, targets[index].target.id == id {
            targets[index] = state
        } else {
            targets.insert(state, at: index)
        }
    }

    /// Removes the target `id`, if it is active.
    private mutating func drop(_ id: Int32) {
        targets.removeAll { $0.target.id == id }
    }

    /// A global consistent snapshot (empty target ids, a read time, a resume token).
    private mutating func snapshot(at time: Timestamp) -> ListenEvent {
        let time = max(time, lastReadTime ?? time)
        lastReadTime = time
        return .targetChange(.noChange, targetIDs: [], resumeTime: time, readTime: time)
    }
}

extension ListenSession.TargetState {
    /// Applies one commit to the target, recording in `outcome` the documents that entered or left it.
    mutating func apply(
        _ outcome: inout ListenSession.CommitEffect, at commitTime: Timestamp,
        rerun: (ListenTarget) throws(FirestoreError) -> [Document]
    ) throws(FirestoreError) {
        guard commitTime > since else { return }
        let id = target.id
        let changes = outcome.changes
        if target.isDecidedPerDocument {
            // Bound once: reading them in the loop would copy them for every change.
            let scope = scope
            let plan = plan
            for (index, change) in changes.enumerated() where scope.contains(change.path) {
                let key = outcome.keys[index]
                if let after = change.after, plan?.matches(after) ?? true {
                    if matching.updateValue(after.updateTime, forKey: key) != after.updateTime {
                        outcome.moves.append((index, id, entered: true))
                    }
                } else if matching.removeValue(forKey: key) != nil {
                    outcome.moves.append((index, id, entered: false))
                }
            }
            return
        }
        guard changes.contains(where: { scope.contains($0.path) }) else { return }
        let results = try rerun(target)
        let now = results.map { HashedPath($0.path) }
        let current = Set(now)
        for key in matching.keys.filter({ !current.contains($0) }) {
            matching[key] = nil
            outcome.leave(key.path, id)
        }
        for (document, key) in zip(results, now) where matching.updateValue(document.updateTime, forKey: key) != document.updateTime {
            outcome.enter(document, id)
        }
    }
}

extension ListenSession {
    /// What one commit does to the targets: the targets each changed document (by its index in the commit)
    /// entered and left, and the documents that entered or left a re-run target without changing.
    struct CommitEffect {
        let changes: [(path: DocumentPath, before: Document?, after: Document?)]
        /// The changed paths, hashed once for every target.
        let keys: [HashedPath]
        /// Which changed document entered or left which target, in target order. One list for the whole
        /// commit: a commit that reaches one target of a stream costs one small array.
        var moves: [(index: Int, id: Int32, entered: Bool)] = []
        private var indices: [DocumentPath: Int]?
        private var enteredUnchanged: [DocumentPath: (document: Document, targets: [Int32])] = [:]
        private var leftUnchanged: [DocumentPath: [Int32]] = [:]

        init(changes: [(path: DocumentPath, before: Document?, after: Document?)], keys: [HashedPath]?) {
            self.changes = changes
            self.keys = keys ?? changes.map { HashedPath($0.path) }
        }

        /// `document` entered target `id` (re-run).
        mutating func enter(_ document: Document, _ id: Int32) {
            if let index = index(of: document.path) {
                moves.append((index, id, entered: true))
            } else {
                enteredUnchanged[document.path, default: (document, [])].targets.append(id)
            }
        }

        /// `path` left target `id` (re-run).
        mutating func leave(_ path: DocumentPath, _ id: Int32) {
            if let index = index(of: path) {
                moves.append((index, id, entered: false))
            } else {
                leftUnchanged[path, default: []].append(id)
            }
        }

        private mutating func index(of path: DocumentPath) -> Int? {
            if indices == nil {
                indices = Dictionary(changes.indices.map { (changes[$0].path, $0) }, uniquingKeysWith: { first, _ in first })
            }
            return indices?[path]
        }

        /// The document events, in document order: a change for a document that entered a target (listing
        /// those it left), else a delete or a remove. Room is left for the snapshot that follows them.
        func events(at commitTime: Timestamp) -> [ListenEvent] {
            if changes.count == 1, enteredUnchanged.isEmpty, leftUnchanged.isEmpty {
                guard !moves.isEmpty else { return [] }
                var events: [ListenEvent] = []
                events.reserveCapacity(2)
                events.append(event(for: 0, moves[...], at: commitTime))
                return events
            }
            // Targets are applied in id order, so a document's moves are in id order once grouped.
            let moves = moves.sorted { ($0.index, $0.id) < ($1.index, $1.id) }
            var events: [(path: DocumentPath, event: ListenEvent)] = []
            var start = moves.startIndex
            while start < moves.endIndex {
                let index = moves[start].index
                let end = moves[start...].firstIndex { $0.index != index } ?? moves.endIndex
                events.append((changes[index].path, event(for: index, moves[start..<end], at: commitTime)))
                start = end
            }
            for (path, entry) in enteredUnchanged {
                events.append(
                    (path, .documentChange(entry.document, targetIDs: entry.targets, removedTargetIDs: leftUnchanged[path] ?? [])))
            }
            for (path, ids) in leftUnchanged where enteredUnchanged[path] == nil {
                events.append((path, .documentRemove(path, removedTargetIDs: ids, readTime: commitTime)))
            }
            events.sort { $0.path < $1.path }
            var ordered: [ListenEvent] = []
            ordered.reserveCapacity(events.count + 1)
            for (_, event) in events { ordered.append(event) }
            return ordered
        }

        /// The event of changed document `index`, given its moves (at least one, in target order).
        private func event(for index: Int, _ moves: ArraySlice<(index: Int, id: Int32, entered: Bool)>, at commitTime: Timestamp) -> ListenEvent {
            var entered: [Int32] = []
            var left: [Int32] = []
            for move in moves {
                if move.entered { entered.append(move.id) } else { left.append(move.id) }
            }
            let (path, _, after) = changes[index]
            if let after, !entered.isEmpty {
                return .documentChange(after, targetIDs: entered, removedTargetIDs: left)
            }
            return after == nil
                ? .documentDelete(path, removedTargetIDs: left, readTime: commitTime)
                : .documentRemove(path, removedTargetIDs: left, readTime: commitTime)
        }
    }
}

/// A document path with its hash computed once: the listen state of every target keys its documents by
/// it, so a commit hashes each changed path once, not once per target, and growing a target's table
/// rehashes no strings.
struct HashedPath: Hashable, Sendable {
    /// The path.
    let path: DocumentPath
    private let hash: Int

    /// `path`, hashed.
    init(_ path: DocumentPath) {
        self.path = path
        hash = path.hashValue
    }

    func hash(into hasher: inout Hasher) { hasher.combine(hash) }

    static func == (lhs: HashedPath, rhs: HashedPath) -> Bool { lhs.hash == rhs.hash && lhs.path == rhs.path }
}
