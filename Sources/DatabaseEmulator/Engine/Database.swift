import DatabaseRules
import DatabaseTree
import EmulatorCore
import Synchronization

/// One database (a namespace, `?ns=`): its tree, its rules and its listens, behind one lock. Writes are
/// checked against the rules and applied atomically; the listens they concern are told in commit order
/// before the lock is released (sinks only enqueue), so every client sees changes in the order they
/// happened and a slow client holds up nobody.
final class Database: Sendable {
    /// The namespace.
    let name: String
    private let clock: any EmulatorClock
    private let state: Mutex<State>

    private struct State: ~Copyable {
        var root = DataNode.empty
        var rules: DatabaseRuleSet
        var listens = ListenRegistry()
        var nextListenerID: UInt64 = 1
        /// Where every write is recorded before it is acknowledged (`--data-dir`), if anywhere.
        var journal: DatabaseJournal?
        /// Where every rules decision is recorded (the Emulator UI runs), if anywhere.
        var requests: RequestLog?
        /// The children of large nodes ordered by an index their rules' `.indexOn` declares, built by the
        /// first query that reads them so and kept current by every write (see `ChildIndex`).
        var childIndexes: [ChildIndexKey: ChildIndex] = [:]
    }

    /// A node and the index its children are ordered by.
    private struct ChildIndexKey: Hashable {
        var path: DatabasePath
        var index: DatabaseQuery.Index
    }

    /// The fewest children a node has for a query to build its child index: below it a pass over the
    /// children costs little.
    static let childIndexThreshold = 1_000

    /// A database with `rules` holding `root`; with `journal`, every change is recorded there first; with
    /// `requests`, every rules decision.
    init(
        name: String, rules: DatabaseRuleSet, clock: any EmulatorClock, root: DataNode = .empty,
        journal: DatabaseJournal? = nil, requests: RequestLog? = nil
    ) {
        self.name = name
        self.clock = clock
        state = Mutex(State(root: root, rules: rules, journal: journal, requests: requests))
    }

    /// The server time in milliseconds.
    var now: Int64 { clock.now().millisecondsSince1970 }

    // MARK: - Rules

    /// The rules in force.
    var rules: DatabaseRuleSet { state.withLock { $0.rules } }

    /// Replaces the rules; listens the new rules no longer allow are revoked.
    func setRules(_ rules: DatabaseRuleSet) {
        let now = self.now
        state.withLock { state in
            state.rules = rules
            for listener in state.listens.all { _ = Self.revokeIfDenied(listener, state: &state, now: now) }
        }
    }

    /// A connection's listens now read as `auth` (it signed in, out, or as someone else): each is checked
    /// again and revoked (`c`) if the rules no longer allow it; returns the revoked ids.
    func reauthorize(_ ids: [UInt64], auth: DatabaseAuth) -> Set<UInt64> {
        let now = self.now
        return state.withLock { state in
            var revoked = Set<UInt64>()
            for id in ids {
                guard var listener = state.listens.listener(id) else { continue }
                listener.auth = auth
                state.listens.setAuth(auth, of: id)
                if Self.revokeIfDenied(listener, state: &state, now: now) { revoked.insert(id) }
            }
            return revoked
        }
    }

    /// Ends a listen the rules no longer allow, telling its sink (`c`); returns whether it did.
    private static func revokeIfDenied(_ listener: Listener, state: inout State, now: Int64) -> Bool {
        guard case .user(let auth) = listener.auth else { return false }
        let query = RuleQuery(listener.query)
        guard !state.rules.canRead(listener.path, root: state.root, auth: auth, now: now, query: query) else { return false }
        state.listens.remove(listener.id)
        listener.sink.deliver(Delivery(.revoked(path: listener.path, query: listener.query, tag: listener.tag)))
        return true
    }

    // MARK: - Reads

    /// The data at `path` that `query` selects, if `auth` may read it.
    func read(_ path: DatabasePath, query: DatabaseQuery = .all, auth: DatabaseAuth) throws(DatabaseError) -> DataNode {
        let now = self.now
        return try state.withLock { state throws(DatabaseError) -> DataNode in
            try Self.checkRead(path, query: query, auth: auth, state: state, now: now)
            return Self.window(of: query, at: path, in: state.root, state: &state)
        }
    }

    /// What `query` selects of the node at `path` of `root` (the current tree): through a child index when
    /// one serves it (see `childIndex(for:at:of:state:)`), else by a pass over the children.
    private static func window(of query: DatabaseQuery, at path: DatabasePath, in root: DataNode, state: inout State) -> DataNode {
        let node = root.node(at: path)
        if let index = childIndex(for: query, at: path, of: node, state: &state) { return query.window(of: node, using: index) }
        return query.window(of: node)
    }

    /// Whether `auth` may read `path` with `query` (the data itself is not read).
    func checkRead(_ path: DatabasePath, query: DatabaseQuery, auth: DatabaseAuth) throws(DatabaseError) {
        let now = self.now
        try state.withLock { state throws(DatabaseError) in
            try Self.checkRead(path, query: query, auth: auth, state: state, now: now)
        }
    }

    /// The whole tree (admin reads: export, inspection).
    var root: DataNode { state.withLock { $0.root } }

    /// How many child indexes queries have built (inspection).
    var childIndexCount: Int { state.withLock { $0.childIndexes.count } }

    /// Replaces the whole tree without rules (an import, a checkpoint's restore), telling the listens what
    /// changed as a set of the root would.
    func replaceRoot(_ root: DataNode) throws(DatabaseError) {
        try state.withLock { state throws(DatabaseError) in
            let old = state.root
            guard old != root else { return }
            try state.journal?.replace(root)
            state.root = root
            state.childIndexes = [:]
            Self.notify(state: &state, old: old, new: root, request: .set(.root, .null))
        }
    }

    private static func checkRead(
        _ path: DatabasePath, query: DatabaseQuery, auth: DatabaseAuth, state: borrowing State, now: Int64
    ) throws(DatabaseError) {
        if let invalid = path.invalidKey, invalid != ".info" { throw .invalid(Self.invalidPathMessage(invalid)) }
        if path.keys.count > DatabasePath.maximumDepth { throw .invalid(Self.tooDeepMessage) }
        guard case .user(let variable) = auth else { return }
        let trace = state.requests.map { _ in DatabaseRulesTrace() }
        let allowed = state.rules.canRead(path, root: state.root, auth: variable, now: now, query: RuleQuery(query), trace: trace)
        record(allowed, "read", path, variable, trace, state: state)
        guard allowed else { throw .permissionDenied }
    }

    /// Records a decision in the request log, if there is one (`trace` is then its trace).
    private static func record(
        _ allowed: Bool, _ method: String, _ path: DatabasePath, _ auth: JSONValue?, _ trace: DatabaseRulesTrace?,
        state: borrowing State
    ) {
        guard let log = state.requests, let trace else { return }
        let rules = state.rules
        log.record(
            RequestLogEntry(
                service: "database", method: method, path: path.description, uid: auth?["uid"]?.stringValue,
                allowed: allowed, explanation: rules.explanation(of: trace), detail: { rules.report(of: trace) }))
    }

    // MARK: - Listens

    /// Starts a listen: checks the rules, sends the current data to `sink` and registers it; returns its id.
    func listen(
        _ path: DatabasePath, query: DatabaseQuery, tag: Int?, auth: DatabaseAuth, sink: any ListenSink
    ) throws(DatabaseError) -> UInt64 {
        let now = self.now
        return try state.withLock { state throws(DatabaseError) -> UInt64 in
            try Self.checkRead(path, query: query, auth: auth, state: state, now: now)
            let view = Self.window(of: query, at: path, in: state.root, state: &state)
            let id = state.nextListenerID
            state.nextListenerID += 1
            state.listens.add(
                Listener(
                    id: id, path: path, query: query, tag: tag, sink: sink, auth: auth,
                    window: query.loadsAllData ? nil : view))
            sink.deliver(Delivery(.overwrite(path: path, node: view, tag: tag)))
            return id
        }
    }

    /// Ends a listen.
    func unlisten(_ id: UInt64) {
        state.withLock { _ = $0.listens.remove(id) }
    }

    /// Ends listens.
    func unlisten(_ ids: some Sequence<UInt64>) {
        state.withLock { state in
            for id in ids { state.listens.remove(id) }
        }
    }

    // MARK: - Writes

    /// What a write stored: the node now at a set's path, or each updated node by relative path.
    enum Written: Sendable {
        case set(DataNode)
        case update([(DatabasePath, DataNode)])
    }

    /// Checks and applies one write; the listens it concerns are told before this returns. `hash` makes it a
    /// transaction (`datastale` unless the data's hash is still that); `ifMatch` is a REST ETag condition.
    @discardableResult
    func write(
        _ request: WriteRequest, auth: DatabaseAuth, hash: String? = nil, ifMatch: String? = nil
    ) throws(DatabaseError) -> Written {
        let now = self.now
        return try state.withLock { state throws(DatabaseError) -> Written in
            if let hash, !state.root.node(at: request.path).matchesHash(hash) { throw .dataStale }
            if let ifMatch {
                let current = state.root.node(at: request.path)
                if Self.etag(of: current) != ifMatch { throw .preconditionFailed(current: current) }
            }
            return try Self.apply(request, auth: auth, now: now, state: &state)
        }
    }

    /// Applies writes in order as one atomic step (a connection's onDisconnect operations); a write the rules
    /// or the data refuse is skipped and the rest still happen.
    func writeAll(_ requests: [(WriteRequest, DatabaseAuth)]) {
        let now = self.now
        state.withLock { state in
            for (request, auth) in requests {
                _ = try? Self.apply(request, auth: auth, now: now, state: &state)
            }
        }
    }

    /// Whether `auth` could write `request` now (onDisconnect operations are checked when registered).
    func checkWrite(_ request: WriteRequest, auth: DatabaseAuth) throws(DatabaseError) {
        let now = self.now
        try state.withLock { state throws(DatabaseError) in
            _ = try Self.prepare(request, auth: auth, now: now, state: state)
        }
    }

    /// The ETag of a node as the REST API sends it: its hash, `null_etag` when empty.
    static func etag(of node: DataNode) -> String {
        node.isEmpty ? "null_etag" : node.hash
    }

    static let tooDeepMessage = "Invalid data; a path in the database may be at most 32 levels deep"

    static func invalidPathMessage(_ key: String) -> String {
        "Invalid path: key \"\(key)\" must be non-empty and must not contain \".\", \"#\", \"$\", \"[\", \"]\" or control characters"
    }

    private static func apply(
        _ request: WriteRequest, auth: DatabaseAuth, now: Int64, state: inout State
    ) throws(DatabaseError) -> Written {
        let (newRoot, written, nodes) = try prepare(request, auth: auth, now: now, state: state)
        try state.journal?.record(nodes, root: newRoot)
        let oldRoot = state.root
        state.root = newRoot
        updateChildIndexes(at: nodes.map(\.path), from: oldRoot, to: newRoot, state: &state)
        notify(state: &state, old: oldRoot, new: newRoot, request: request)
        return written
    }

    /// The child index `query` reads the children of `node` (at `path`) through, built now if the node is
    /// large and indexed that way: by key and by priority always (as production orders them natively), by
    /// a child or by value when the rules' `.indexOn` declares it; `nil` otherwise.
    private static func childIndex(for query: DatabaseQuery, at path: DatabasePath, of node: DataNode, state: inout State) -> ChildIndex? {
        guard !query.loadsAllData else { return nil }
        let declared: String?
        switch query.index {
        case .child(let child): declared = child.wire
        case .value: declared = ".value"
        case .key, .priority: declared = nil
        }
        let key = ChildIndexKey(path: path, index: query.index)
        if let index = state.childIndexes[key] { return index }
        guard node.childCount >= childIndexThreshold, declared.map({ state.rules.indexOn(path).contains($0) }) ?? true else { return nil }
        let index = ChildIndex(of: node, by: query.index)
        state.childIndexes[key] = index
        return index
    }

    /// Keeps the child indexes current after a write that put nodes at `paths`: a node written below an
    /// indexed node changes one of its children; one written at or above it replaces it (the index is
    /// dropped, to be built again when a query needs it).
    private static func updateChildIndexes(at paths: [DatabasePath], from old: DataNode, to new: DataNode, state: inout State) {
        guard !state.childIndexes.isEmpty else { return }
        for key in Array(state.childIndexes.keys) {
            let base = key.path.keys
            for path in paths {
                if path.keys.count > base.count, path.keys.starts(with: base) {
                    let child = path.keys[base.count]
                    guard !child.hasPrefix(".") else { continue }  // the node's own priority
                    let at = key.path.appending(DatabasePath(keys: [child]))
                    state.childIndexes[key]?.update(child, from: old.node(at: at), to: new.node(at: at))
                } else if base.starts(with: path.keys) {
                    state.childIndexes[key] = nil
                    break
                }
            }
        }
    }

    /// The new tree a write makes, after the rules allowed it, and the node it puts at each path.
    private static func prepare(
        _ request: WriteRequest, auth: DatabaseAuth, now: Int64, state: borrowing State
    ) throws(DatabaseError) -> (DataNode, Written, [(path: DatabasePath, node: DataNode)]) {
        var newRoot = state.root
        let written: Written
        var put: [(path: DatabasePath, node: DataNode)] = []
        switch request {
        case .set(let path, let json):
            let node = try node(json, at: path, in: state.root, now: now)
            newRoot.set(node, at: path)
            written = .set(newRoot.node(at: path))
            put.append((path, node))
        case .update(let base, let entries):
            var nodes: [(DatabasePath, DataNode)] = []
            for (relative, json) in entries {
                let path = base.appending(relative)
                let node = try node(json, at: path, in: state.root, now: now)
                newRoot.set(node, at: path)
                nodes.append((relative, node))
                put.append((path, node))
            }
            written = .update(nodes)
        }
        if case .user(let variable) = auth {
            for path in put.map(\.path) {
                let target = path.last == ".priority" ? path.parent : path
                let trace = state.requests.map { _ in DatabaseRulesTrace() }
                let allowed = state.rules.canWrite(
                    target, oldRoot: state.root, newRoot: newRoot, auth: variable, now: now, trace: trace)
                record(allowed, "write", target, variable, trace, state: state)
                guard allowed else { throw .permissionDenied }
            }
        }
        return (newRoot, written, put)
    }

    /// The node JSON makes at `path`: placeholders resolved, keys and priorities checked.
    private static func node(_ json: JSONValue, at path: DatabasePath, in root: DataNode, now: Int64) throws(DatabaseError) -> DataNode {
        if let invalid = path.invalidKey { throw .invalid(invalidPathMessage(invalid)) }
        if path.keys.first == ".info" { throw .invalid("Invalid path: /.info is read-only") }
        if path.keys.count + json.depth > DatabasePath.maximumDepth { throw .invalid(tooDeepMessage) }
        do throws(InvalidData) {
            let resolved =
                ServerValues.containsPlaceholder(json)
                ? try ServerValues.resolve(json, existing: root.node(at: path), now: now, path: path) : json
            if path.last == ".priority" {
                switch resolved {
                case .null, .string, .int, .double: break
                default: throw InvalidData(message: "Invalid data; a priority must be a string, a number or null")
                }
            }
            return try DataNode(json: resolved)
        } catch {
            throw .invalid(error.message)
        }
    }

    /// Tells each listen a write concerns what changed for it. Listens that see the same change share one
    /// `Delivery` (rendered once).
    private static func notify(state: inout State, old: DataNode, new: DataNode, request: WriteRequest) {
        let path = request.path
        var sent = Set<SentKey>()
        // Many clients often listen to the same place: work each window and each event out once per write.
        var deliveries: [EventKey: Delivery] = [:]
        func delivery(_ key: EventKey, _ make: () -> ListenEvent?) -> Delivery? {
            if let delivery = deliveries[key] { return delivery }
            guard let event = make() else { return nil }
            let delivery = Delivery(event)
            deliveries[key] = delivery
            return delivery
        }
        for listener in state.listens.affected(by: path) {
            let sink = ObjectIdentifier(listener.sink)
            if !listener.query.loadsAllData {
                let key = EventKey.window(listener.path, listener.query, listener.tag)
                guard
                    let shared = delivery(key, {
                        .overwrite(path: listener.path, node: window(of: listener.query, at: listener.path, in: new, state: &state), tag: listener.tag)
                    }), case .overwrite(_, let window, _) = shared.event, window != listener.window
                else { continue }
                state.listens.setWindow(window, of: listener.id)
                listener.sink.deliver(shared)
                continue
            }
            if listener.path.contains(path) {
                // The listen covers the write: pass the write on as it was made.
                guard sent.insert(SentKey(sink: sink, path: path, tag: listener.tag)).inserted else { continue }
                let shared = delivery(.write(listener.tag)) {
                    switch request {
                    case .set:
                        return .overwrite(path: path, node: new.node(at: path), tag: listener.tag)
                    case .update(_, let entries):
                        let children = entries.map { ($0.0, new.node(at: path.appending($0.0))) }
                        return .merge(path: path, children: children, tag: listener.tag)
                    }
                }
                if let shared { listener.sink.deliver(shared) }
            } else {
                // The write covers the listen: send the listened node if it changed.
                guard sent.insert(SentKey(sink: sink, path: listener.path, tag: listener.tag)).inserted else { continue }
                let shared = delivery(.node(listener.path, listener.tag)) {
                    let after = new.node(at: listener.path)
                    guard after != old.node(at: listener.path) else { return nil }
                    return .overwrite(path: listener.path, node: after, tag: listener.tag)
                }
                if let shared { listener.sink.deliver(shared) }
            }
        }
    }

    private enum EventKey: Hashable {
        case window(DatabasePath, DatabaseQuery, Int?)
        case write(Int?)
        case node(DatabasePath, Int?)
    }

    private struct SentKey: Hashable {
        var sink: ObjectIdentifier
        var path: DatabasePath
        var tag: Int?
    }
}

extension JSONValue {
    /// How many levels of objects and arrays the value nests (a primitive: 0).
    fileprivate var depth: Int {
        switch self {
        case .object(let members): return 1 + (members.values.lazy.map(\.depth).max() ?? 0)
        case .array(let elements): return 1 + (elements.lazy.map(\.depth).max() ?? 0)
        default: return 0
        }
    }
}
