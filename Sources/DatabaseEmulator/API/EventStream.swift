import DatabaseTree
import EmulatorCore
import HTTPTypes
import Hummingbird
import NIOCore

/// A REST listen: `GET /<path>.json` with `Accept: text/event-stream`. The stream opens with a `put` of the
/// whole location (`"path": "/"`), then sends a `put` or `patch` for every change (paths relative to the
/// location), a `keep-alive` every 30 s, and `cancel` (then ends) when the rules stop allowing the read.
final class EventStream: ListenSink {
    private enum Item: Sendable {
        case event(ListenEvent)
        case keepAlive
    }

    private let location: DatabasePath
    private let export: Bool
    private let outbox = Outbox<Item>(limit: 100_000)

    /// How often an idle stream says it is alive.
    static let keepAliveInterval = Duration.seconds(30)

    private init(location: DatabasePath, export: Bool) {
        self.location = location
        self.export = export
    }

    /// Checks the rules (a denied stream is refused before it opens) and returns the streaming response,
    /// which registers the listen once it is written and ends it when the client goes away.
    static func open(
        path: DatabasePath, query: DatabaseQuery?, auth: DatabaseAuth, in database: Database, export: Bool
    ) throws(DatabaseError) -> Response {
        try database.checkRead(path, query: query ?? .all, auth: auth)
        let stream = EventStream(location: path, export: export)
        let body = ResponseBody { writer in
            guard let id = try? database.listen(path, query: query ?? .all, tag: nil, auth: auth, sink: stream) else {
                try await writer.write(ByteBuffer(string: Self.event("cancel", .null)))
                try await writer.finish(nil)
                return
            }
            let keepAlive = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: keepAliveInterval)
                    stream.outbox.send(.keepAlive)
                }
            }
            defer {
                keepAlive.cancel()
                database.unlisten(id)
            }
            for await item in stream.outbox.items {
                stream.outbox.taken()
                let (text, last) = stream.render(item)
                do {
                    try await writer.write(ByteBuffer(string: text))
                } catch {
                    break
                }
                if last { break }
            }
            try? await writer.finish(nil)
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-cache", .connection: "keep-alive"],
            body: body)
    }

    /// Enqueues a listen event.
    func deliver(_ delivery: Delivery) {
        outbox.send(.event(delivery.event))
    }

    /// The event's text, and whether the stream ends after it.
    private func render(_ item: Item) -> (String, Bool) {
        switch item {
        case .keepAlive:
            return (Self.event("keep-alive", .null), false)
        case .event(.revoked):
            return (Self.event("cancel", .null), true)
        case .event(.overwrite(let path, let node, _)):
            return (Self.event("put", ["path": .string(relative(path)), "data": value(node)]), false)
        case .event(.merge(let path, let children, _)):
            var members: [String: JSONValue] = [:]
            for (child, node) in children { members[child.wire] = value(node) }
            return (Self.event("patch", ["path": .string(relative(path)), "data": .object(members)]), false)
        }
    }

    private func value(_ node: DataNode) -> JSONValue { export ? node.exportJSON : node.valueJSON }

    /// A path as the stream's events give it: relative to the location, with a leading slash.
    private func relative(_ path: DatabasePath) -> String {
        (location.relative(path) ?? .root).description
    }

    private static func event(_ name: String, _ data: JSONValue) -> String {
        "event: \(name)\ndata: \(data.serialized())\n\n"
    }
}
