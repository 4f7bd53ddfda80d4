import EmulatorCore
import FirestoreWire
import GRPCCore
import NIOCore
import SwiftProtobuf
import Synchronization

/// A listen stream served on an event loop, without a task: requests arrive from its transport as they
/// are read (`receive`), and commits from the loop's `LoopListeners`, which hands each commit to every listen
/// call on the loop in one pass. Both go through the same `ListenStream` as the async path, so the answers
/// are the same. gRPC's `Listen` calls (`GRPCConnectionHandler`) and the web SDK's WebChannel `Listen`
/// sessions are served this way; each transport says how events are written (`ListenCallOutput`). A call
/// ends with a gRPC status, which WebChannel carries too.
final class ListenCall {
    private var stream: ListenStream
    private let output: any ListenCallOutput
    private let loops: ListenLoops
    /// The loop's listen calls, once the first request named the database.
    private var joined: LoopListeners?
    /// Commits delivered in a row while the client was not reading; at the feed's limit the call ends.
    private var unread = 0
    private var isOver = false

    /// A call listening for `credential`, writing to `output`, fed commits through `loops`.
    init(service: FirestoreService, credential: Credential, output: any ListenCallOutput, loops: ListenLoops) {
        stream = ListenStream(service: service, credential: credential)
        self.output = output
        self.loops = loops
    }

    /// The client's next request.
    func receive(_ request: ListenRequest) {
        guard !isOver else { return }
        do {
            let events = try stream.receive(request) { (database) throws(FirestoreError) in
                joined = loops.join(self, database: database, on: output.eventLoop)
            } awaitCatchUp: {
                joined?.awaitCatchUp(of: self)
            }
            send(events)
        } catch {
            end(RPCError(error))
        }
    }

    /// The client ended its requests: the call ends once every target it added has had its snapshot.
    func requestsEnded() {
        stream.endRequests()
        if stream.isDone { end(nil) }
    }

    /// The client went away: the call stops taking commits.
    func closed() {
        stop()
    }

    /// One commit of the call's database (from `LoopListeners`' pass, whose calls share `encoder`).
    func apply(_ entry: CommitFeed.Entry, encoder: inout ListenResponseEncoder) {
        guard !isOver else { return }
        if output.isWritable {
            unread = 0
        } else {
            unread += 1
            guard unread < stream.service.feed.limit else {
                return end(RPCError(FirestoreError.listenerBehind))
            }
        }
        do {
            send(try stream.apply(entry), encoder: &encoder)
        } catch {
            end(RPCError(error))
        }
    }

    /// Every commit published before the last `awaitCatchUp` has been applied.
    func caughtUp() {
        guard !isOver else { return }
        send(stream.caughtUp())
        if stream.isDone { end(nil) }
    }

    /// The loop's listen calls ended this one (they fell too far behind the writes).
    func cutOff() {
        end(RPCError(FirestoreError.listenerBehind))
    }

    /// Sends `events` with a fresh encoder (they answer this call's requests).
    private func send(_ events: [ListenEvent]) {
        guard let database = stream.database, !events.isEmpty else { return }
        var encoder = ListenResponseEncoder(database: database)
        send(events, encoder: &encoder)
    }

    private func send(_ events: [ListenEvent], encoder: inout ListenResponseEncoder) {
        guard !events.isEmpty else { return }
        output.send(events, encoder: &encoder)
    }

    /// Ends the call with `error`'s status: a request its transport could not read.
    func fail(_ error: RPCError) {
        end(error)
    }

    /// Ends the call with `error`'s status (OK when nil).
    private func end(_ error: RPCError?) {
        if stop() { output.finish(error) }
    }

    /// Stops taking commits; false if the call was over already.
    @discardableResult private func stop() -> Bool {
        guard !isOver else { return false }
        isOver = true
        joined?.leave(self)
        return true
    }
}

/// Where a `ListenCall` writes: a gRPC stream, or a WebChannel session. Use on the call's event loop.
protocol ListenCallOutput: AnyObject {
    /// The call's event loop.
    var eventLoop: any EventLoop { get }
    /// Whether the client takes more events without their queueing up (it reads).
    var isWritable: Bool { get }
    /// Sends one batch of events (one commit's changes and their snapshot, or a request's answer) of
    /// `encoder.database`. The calls of one commit's pass share `encoder`.
    func send(_ events: [ListenEvent], encoder: inout ListenResponseEncoder)
    /// Ends the call with status OK, or `error`'s; nothing is sent after it.
    func finish(_ error: RPCError?)
}

/// The listen calls served on one event loop, by database. Each database they listen to has one feed
/// subscription here, whose commits the loop hands to every call in one pass (`FlushBatch`: one flush per
/// connection). Confined to its event loop.
final class LoopListeners {
    private let eventLoop: any EventLoop
    private let feed: CommitFeed
    private let loops: ListenLoops
    private var calls: [DatabaseName: [ObjectIdentifier: ListenCall]] = [:]
    private var subscriptions: [DatabaseName: (id: Int, backlog: Backlog)] = [:]

    /// The listen calls of `eventLoop`, fed from `feed`; `loops` forgets them once the last call leaves.
    fileprivate init(eventLoop: any EventLoop, feed: CommitFeed, loops: ListenLoops) {
        self.eventLoop = eventLoop
        self.feed = feed
        self.loops = loops
    }

    /// Adds `call` to `database`'s listeners, subscribing the loop to the database's commits if it is the
    /// first.
    fileprivate func join(_ call: ListenCall, database: DatabaseName) {
        if subscriptions[database] == nil {
            let backlog = Backlog()
            let me = NIOLoopBound(self, eventLoop: eventLoop)
            let (eventLoop, limit) = (eventLoop, feed.limit)
            let id = feed.subscribe(database) { entry in
                // The loop is too far behind: its calls are cut off, and it stops taking commits.
                guard backlog.add() < limit else {
                    eventLoop.execute { me.value.cutOff(database) }
                    return false
                }
                eventLoop.execute {
                    backlog.remove()
                    me.value.deliver(entry, to: database)
                }
                return true
            }
            subscriptions[database] = (id, backlog)
        }
        calls[database, default: [:]][ObjectIdentifier(call)] = call
    }

    /// Removes `call`; the loop's subscription to a database ends with its last call.
    func leave(_ call: ListenCall) {
        for (database, var members) in calls where members.removeValue(forKey: ObjectIdentifier(call)) != nil {
            if members.isEmpty {
                calls[database] = nil
                if let subscription = subscriptions.removeValue(forKey: database) {
                    feed.unsubscribe(subscription.id, from: database)
                }
            } else {
                calls[database] = members
            }
        }
        if calls.isEmpty { loops.forget(eventLoop, ifStill: self) }
    }

    /// Calls `call.caughtUp()` once every commit published so far has been handed to the loop's calls.
    func awaitCatchUp(of call: ListenCall) {
        let call = NIOLoopBound(call, eventLoop: eventLoop)
        let eventLoop = eventLoop
        feed.afterPublished {
            eventLoop.execute { call.value.caughtUp() }
        }
    }

    /// Hands `entry` to each call listening to `database`, in one pass.
    private func deliver(_ entry: CommitFeed.Entry, to database: DatabaseName) {
        var encoder = ListenResponseEncoder(database: database)
        forEachCall(of: database) { $0.apply(entry, encoder: &encoder) }
    }

    /// Ends every call listening to `database`: the loop fell too far behind its commits.
    private func cutOff(_ database: DatabaseName) {
        subscriptions[database] = nil
        forEachCall(of: database) { $0.cutOff() }
    }

    /// Runs `body` on each call listening to `database` (a copy of them: a call may leave meanwhile), in one
    /// pass that flushes each connection once.
    private func forEachCall(of database: DatabaseName, _ body: (ListenCall) -> Void) {
        guard let members = calls[database] else { return }
        FlushBatch.current.run {
            for call in members.values { body(call) }
        }
    }
}

/// Each event loop's `LoopListeners`, for one Firestore service's gRPC endpoint.
final class ListenLoops: Sendable {
    private let feed: CommitFeed
    private let loops = Mutex<[ObjectIdentifier: NIOLoopBound<LoopListeners>]>([:])

    /// The loops of listeners fed from `feed`.
    init(feed: CommitFeed) {
        self.feed = feed
    }

    /// Adds `call`, running on `eventLoop` (call there), to `database`'s listeners of that loop.
    fileprivate func join(_ call: ListenCall, database: DatabaseName, on eventLoop: any EventLoop) -> LoopListeners {
        let key = ObjectIdentifier(eventLoop)
        let listeners =
            loops.withLock { $0[key]?.value }
            ?? {
                let made = LoopListeners(eventLoop: eventLoop, feed: feed, loops: self)
                loops.withLock { $0[key] = NIOLoopBound(made, eventLoop: eventLoop) }
                return made
            }()
        listeners.join(call, database: database)
        return listeners
    }

    /// Drops `eventLoop`'s listeners once they have no calls left (a loop that outlives them, or a new loop
    /// at the same address, starts afresh).
    fileprivate func forget(_ eventLoop: any EventLoop, ifStill listeners: LoopListeners) {
        loops.withLock { loops in
            if loops[ObjectIdentifier(eventLoop)]?.value === listeners { loops[ObjectIdentifier(eventLoop)] = nil }
        }
    }
}

/// How many commits a loop's subscription has queued on the loop and not yet handed out.
private final class Backlog: Sendable {
    private let count = Atomic<Int>(0)
    /// Counts one more; returns how many there were before.
    func add() -> Int { count.add(1, ordering: .relaxed).oldValue }
    /// Counts one fewer.
    func remove() { count.subtract(1, ordering: .relaxed) }
}

