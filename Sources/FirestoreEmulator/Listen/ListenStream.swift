import EmulatorCore

/// One listen stream's logic, with no I/O and no concurrency of its own. Its transport hands it the
/// client's requests, the commits of the stream's database and catch-up signals, one at a time in the
/// order they arrive, and sends the events each call returns (one commit's changes and their snapshot come
/// back together). The transport owns the stream's commit subscription: `receive` asks for it with the
/// first request (`subscribe`, called before any target is read, so no commit falls between a target's
/// results and its updates), and for a catch-up signal after each target it adds (`awaitCatchUp`), to be
/// fed back through `caughtUp()` once every commit published before the call has been fed in.
///
/// The async loop (`FirestoreService.serveListen`, gRPC through grpc-swift and in-process listeners) and the
/// event-loop path (`ListenCall`: gRPC's calls and WebChannel's sessions) both drive it, so they give the
/// same answers.
struct ListenStream: Sendable {
    /// The service whose store and rules the stream reads.
    let service: FirestoreService
    /// Who listens.
    let credential: Credential
    /// The stream's database, set by the first request.
    private(set) var database: DatabaseName?
    private var session = ListenSession()

    /// A stream for `credential`'s listeners, before its first request.
    init(service: FirestoreService, credential: Credential) {
        self.service = service
        self.credential = credential
    }

    /// Adds or removes a target. The first request decides the stream's database (an invalid one throws
    /// and ends the stream) and subscribes to its commits.
    mutating func receive(
        _ request: ListenRequest, subscribe: (DatabaseName) throws(FirestoreError) -> Void, awaitCatchUp: () -> Void
    ) throws(FirestoreError) -> [ListenEvent] {
        let database: DatabaseName
        if let known = self.database {
            database = known
        } else {
            database = try DatabaseName(validating: request.database)
            try subscribe(database)
            self.database = database
        }
        let waiting = session.waitingForCatchUp
        let events = handle(request.change, database: database)
        if session.waitingForCatchUp > waiting { awaitCatchUp() }
        return events
    }

    /// The events of one commit of the stream's database; throws if a target's re-run fails.
    mutating func apply(_ entry: CommitFeed.Entry) throws(FirestoreError) -> [ListenEvent] {
        guard let database else { return [] }
        let service = service
        return try session.apply(entry.changes, keys: entry.keys, at: entry.commitTime, in: database) { (target) throws(FirestoreError) in
            try ListenStream.rerun(target, service: service, database: database, at: entry.commitTime)
        }
    }

    /// The held snapshot of the oldest target waiting for catch-up (see `awaitCatchUp`).
    mutating func caughtUp() -> [ListenEvent] {
        session.caughtUp()
    }

    /// The client ended its requests. The stream ends once `isDone`: targets it added still get their
    /// snapshots first (a client that adds a target and half-closes gets ADD, the documents, CURRENT and
    /// the snapshot, as from the official emulator).
    mutating func endRequests() {
        requestsEnded = true
    }

    /// The client ended its requests and every target has had its snapshot.
    var isDone: Bool { requestsEnded && session.waitingForCatchUp == 0 }

    private var requestsEnded = false

    /// Adds or removes a target.
    private mutating func handle(_ change: ListenRequest.Change?, database: DatabaseName) -> [ListenEvent] {
        switch change {
        case .remove(let id):
            return session.remove(id)
        case .add(let id, let decode):
            let target: ListenTarget
            do {
                target = try decode(database)
            } catch {
                return session.refuse(id, because: error)
            }
            do {
                let previous = resumeTime(of: target).flatMap { try? Self.rerun(target, service: service, database: database, at: $0) }
                let (results, readTime, deleted) = try initialResults(of: target, database: database, previous: previous ?? [])
                return session.add(
                    target, results: results, readTime: readTime, in: database,
                    resumed: previous.map { ListenSession.Resumed(previous: $0, deleted: deleted) }, holdingSnapshot: true)
            } catch {
                return session.refuse(target.id, because: error)
            }
        case nil:
            return []
        }
    }

    /// The target's documents now, decided by the rules, the time they were read at, and which of the
    /// `previous` documents no longer exist.
    private func initialResults(of target: ListenTarget, database: DatabaseName, previous: [Document]) throws(FirestoreError) -> ([Document], Timestamp, deleted: Set<DocumentPath>) {
        let now = Timestamp(service.clock.now())
        if case .query(let query) = target.kind {
            try service.indexes.check(query, in: database)
            service.store.prepareIndexes(for: query, in: database)
        }
        let ((documents, deleted), stamp) = try service.store.read(database) {
            (view: inout DatabaseView) throws(FirestoreError) -> ([Document], Set<DocumentPath>) in
            let documents: [Document]
            switch target.kind {
            case .query(let query):
                try service.rules.authorizeQuery(query, credential: credential, view: view, time: now)
                documents = view.run(query)
            case .documents(let paths):
                for path in paths { try service.rules.authorizeGet(path, credential: credential, view: view, time: now) }
                documents = paths.compactMap { view.document(at: $0) }
            }
            return (documents, Set(previous.map(\.path).filter { view.document(at: $0) == nil }))
        }
        return (documents, stamp.readTime, deleted)
    }

    /// When a resumed target's client was last up to date (its resume token's or read time's time), if
    /// that is in the past.
    private func resumeTime(of target: ListenTarget) -> Timestamp? {
        let time: Timestamp?
        switch target.resume {
        case .none: time = nil
        case .token(let token): time = Timestamp(resumeToken: token)
        case .readTime(let readTime): time = readTime
        }
        return time.flatMap { $0 <= Timestamp(service.clock.now()) ? $0 : nil }
    }

    /// A target's results as of `time`, for targets whose membership depends on other documents.
    private static func rerun(
        _ target: ListenTarget, service: FirestoreService, database: DatabaseName, at time: Timestamp
    ) throws(FirestoreError) -> [Document] {
        let (documents, _) = try service.store.read(database, consistency: .readTime(time)) {
            (view: inout DatabaseView) throws(FirestoreError) -> [Document] in
            switch target.kind {
            case .query(let query): return view.run(query)
            case .documents(let paths): return paths.compactMap { view.document(at: $0) }
            }
        }
        return documents
    }
}
