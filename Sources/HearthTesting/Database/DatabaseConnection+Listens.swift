import DatabaseTree
import EmulatorCore

extension DatabaseConnection {
    /// Feeds `continuation` with snapshots of `location` under `query`, listening there unless this
    /// connection already does; returns the subscriber's id.
    func subscribe(
        _ continuation: AsyncThrowingStream<DataSnapshot, any Error>.Continuation, at location: DatabasePath,
        query: DatabaseQuery?
    ) -> UInt64 {
        let id = nextID
        nextID += 1
        if let failure {
            continuation.finish(throwing: failure)
            return id
        }
        let selection = query?.selection ?? .all
        let key = ListenKey(location: location, query: selection.loadsAllData ? nil : selection)
        let subscriber = Listen.Subscriber(continuation: continuation, order: selection.index)
        subscriptions[id] = key
        if var listen = listens[key] {
            listen.subscribers[id] = subscriber
            listens[key] = listen
            if listen.isReady { subscriber.publish(listen.view) }
            return id
        }
        var tag: Int?
        if key.query != nil {
            tag = nextTag
            tags[nextTag] = key
            nextTag += 1
        }
        var listen = Listen(id: id, tag: tag, view: ListenView(location: location, window: key.query))
        listen.subscribers[id] = subscriber
        listens[key] = listen
        var body = Self.listenBody(key, tag: tag)
        body["h"] = ""
        send("q", .object(body), to: .listen(key, id: id))
        return id
    }

    /// Stops feeding a subscriber; the last one of a listen ends it on the wire (`n`).
    func unsubscribe(_ id: UInt64) {
        guard let key = subscriptions.removeValue(forKey: id), var listen = listens[key] else { return }
        listen.subscribers[id] = nil
        guard listen.subscribers.isEmpty else {
            listens[key] = listen
            return
        }
        listens[key] = nil
        if let tag = listen.tag { tags[tag] = nil }
        send("n", .object(Self.listenBody(key, tag: listen.tag)), to: .ignored)
    }

    /// The response to a listen: `ok` makes it ready (its first snapshot goes out), anything else ends it.
    func listenResponded(_ key: ListenKey, id: UInt64, status: String, data: JSONValue) {
        guard var listen = listens[key], listen.id == id else { return }
        guard status == "ok" else {
            end(key, with: ClientError(databaseStatus: status, data: data))
            return
        }
        listen.isReady = true
        listens[key] = listen
        for subscriber in listen.subscribers.values { subscriber.publish(listen.view) }
    }

    /// Applies a data push to the listens it is for: the one with `tag`, or else every untagged one (a
    /// push reaches each connection once, whatever its listens overlapping it).
    func deliver(_ changes: [(path: DatabasePath, node: DataNode)], tag: Int?) {
        for key in keys(tag: tag) {
            guard var listen = listens[key] else { continue }
            let changed = listen.view.apply(changes)
            listens[key] = listen
            guard changed, listen.isReady else { continue }
            for subscriber in listen.subscribers.values { subscriber.publish(listen.view) }
        }
    }

    /// The server revoked the listens at `location` (the rules no longer let this client read): untagged
    /// ones when `queries` is empty, else those of these query objects. They end with `permissionDenied`.
    func revoke(at location: DatabasePath, queries: [JSONValue]) {
        let revoked = Set(queries.map { $0.serialized() })
        let keys = listens.keys.filter { key in
            guard key.location == location else { return false }
            guard let query = key.query else { return revoked.isEmpty }
            return revoked.contains(query.wireJSON.serialized())
        }
        for key in keys {
            let message = "Permission denied: the listen at \(location) was revoked"
            end(key, with: ClientError(.permissionDenied, message: message))
        }
    }

    /// Ends the listens a data push at `location` with `tag` was for (those whose location it overlaps)
    /// with `error`.
    func end(listensAt location: DatabasePath, tag: Int?, with error: ClientError) {
        for key in keys(tag: tag) where key.location.contains(location) || location.contains(key.location) {
            end(key, with: error)
        }
    }

    /// The listens a data push with `tag` is for: the one with the tag, or else every untagged one.
    private func keys(tag: Int?) -> [ListenKey] {
        guard let tag else { return listens.keys.filter { $0.query == nil } }
        return tags[tag].map { [$0] } ?? []
    }

    /// Ends a listen's subscribers with `error` and forgets it.
    private func end(_ key: ListenKey, with error: ClientError) {
        guard let listen = listens.removeValue(forKey: key) else { return }
        if let tag = listen.tag { tags[tag] = nil }
        for (id, subscriber) in listen.subscribers {
            subscriptions[id] = nil
            subscriber.continuation.finish(throwing: error)
        }
    }

    /// `p`, with `q` and `t` for a tagged listen.
    private static func listenBody(_ key: ListenKey, tag: Int?) -> [String: JSONValue] {
        var body: [String: JSONValue] = ["p": .string(key.location.description)]
        if let query = key.query, let tag {
            body["q"] = query.wireJSON
            body["t"] = .int(Int64(tag))
        }
        return body
    }
}
