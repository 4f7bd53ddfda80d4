import EmulatorCore
import EmulatorHTTP
import FirestoreWire
import Foundation
import GRPCCore
import HTTPTypes
import Hummingbird
import NIOCore
import SwiftProtobuf
import Synchronization

/// The web SDK's streams: `Listen` and `Write` over WebChannel at
/// `/google.firestore.v1.Firestore/{Listen,Write}/channel`, as production and the official emulator serve
/// them to browsers, with the gRPC streams' messages as proto3 JSON. A `Listen` session is served as a
/// gRPC `Listen` call is, on an event loop (`WebChannelListen`); a `Write` session commits each request as
/// its forward channel delivers it.
///
/// - Handshake: a POST without `SID`; its body has the `headers` (`Authorization`) and the first requests;
///   the answer is array 0, `["c", SID, ...]`, and an `X-HTTP-Session-Id` header.
/// - Forward channel: POSTs with `SID` carrying numbered requests; answered `[1, last array id, bytes]`.
/// - Back channel: a GET with `SID`, `RID=rpc`, `AID` (arrays received) and `CI` (`0` streams, `1` long
///   polls), answered with numbered arrays `[[id, [message]], ...]` in length-prefixed chunks.
/// - `TYPE=terminate` ends a session; an unknown `SID` is 400 `Unknown SID`, which makes the SDK reconnect.
final class WebChannelEndpoint: Sendable {
    /// The path prefix of every channel.
    static let pathPrefix = "/google.firestore.v1.Firestore/"

    private let service: FirestoreGRPCService
    private let streams = Mutex<[String: WebChannelStream]>([:])
    private let ticker = Mutex<Task<Void, Never>?>(nil)

    /// The endpoint serving `service`'s streams.
    init(service: FirestoreGRPCService) {
        self.service = service
    }

    /// The answer to `request` if it is for a channel, else `nil`. A refused request is answered with
    /// Google's JSON error envelope, as REST answers.
    func respond(to request: Request) async throws -> Response? {
        do {
            return try await answer(request)
        } catch let error as FirestoreError {
            throw error.apiError
        }
    }

    private func answer(_ request: Request) async throws -> Response? {
        guard request.uri.path.hasPrefix(Self.pathPrefix) else { return nil }
        let body = request.method == .post ? try await Self.text(of: request) : ""
        switch try step(method: request.method, path: request.uri.path, query: request.queryFields, body: body) {
        case .answer(let text, let fields):
            var response = Self.chunks(text)
            response.headers.append(contentsOf: fields)
            return response
        case .forwarded(let stream, let maps):
            do {
                return Self.chunks(WebChannelWire.chunk(try await stream.receive(maps.maps, offset: maps.offset, acknowledging: maps.arrayID)))
            } catch {
                throw refusal(closing: stream, error)
            }
        case .backChannel(let stream, let arrayID, let longPoll, let timeout):
            return Response(
                status: .ok, headers: Self.headers,
                body: ResponseBody { writer in
                    try await stream.serveBackChannel(acknowledging: arrayID, longPoll: longPoll, timeout: timeout) {
                        try await writer.write(ByteBuffer(string: $0))
                    }
                    try await writer.finish(nil)
                })
        }
    }

    /// What a channel request asks, once read.
    private enum Step {
        /// An answer now: WebChannel chunks, with these header fields besides the usual.
        case answer(String, HTTPFields)
        /// A forward channel's maps for `stream`, to deliver and answer (`WebChannelStream.receive`).
        case forwarded(WebChannelStream, (maps: [String], offset: Int, arrayID: Int?))
        /// A back channel of `stream`.
        case backChannel(WebChannelStream, arrayID: Int, longPoll: Bool, timeout: Duration?)
    }

    /// Reads a request for a channel (`path` starts with `pathPrefix`): opens a session for a handshake,
    /// ends one for `TYPE=terminate`, or says which session's forward or back channel it is. `body` is a
    /// POST's.
    private func step(method: HTTPRequest.Method, path: String, query: FormFields, body: String) throws(FirestoreError) -> Step {
        let parts = path.dropFirst(Self.pathPrefix.count).split(separator: "/")
        guard parts.count == 2, parts[1] == "channel", let rpc = WebChannelStream.Method(rawValue: String(parts[0])) else {
            throw FirestoreError(.notFound, "Not found: \(method) \(path)")
        }
        guard let sessionID = query["SID"] else {
            guard method == .post else {
                throw FirestoreError(.invalidArgument, "A WebChannel session starts with a POST handshake.")
            }
            let (text, sessionHeader) = try handshake(rpc, body: WebChannelWire.ForwardBody(parsing: body))
            return .answer(text, [.httpSessionID: sessionHeader])
        }
        guard let stream = streams.withLock({ $0[sessionID] }), stream.method == rpc else {
            throw FirestoreError(.invalidArgument, "Unknown SID")
        }
        if query["TYPE"] == "terminate" {
            close(stream)
            return .answer("", [:])
        }
        let arrayID = query["AID"].flatMap { Int($0) }
        if method == .post {
            let forward = WebChannelWire.ForwardBody(parsing: body)
            return .forwarded(stream, (forward.maps, forward.offset, arrayID))
        }
        guard query["RID"] == "rpc" else {
            throw FirestoreError(.invalidArgument, "A WebChannel GET is a back channel (RID=rpc) or TYPE=terminate.")
        }
        return .backChannel(
            stream, arrayID: arrayID ?? 0, longPoll: query["CI"] == "1",
            timeout: query["TO"].flatMap { Int($0) }.map { Duration.milliseconds($0) })
    }

    /// A forward channel's maps that could not be delivered end their session; the error says why.
    private func refusal(closing stream: WebChannelStream, _ error: any Error) -> FirestoreError {
        close(stream)
        return error as? FirestoreError ?? FirestoreError(.invalidArgument, "Invalid JSON payload received. \(error)")
    }

    /// Ends every session (the emulator is stopping).
    func closeAll() {
        ticker.withLock { $0?.cancel() }
        for stream in streams.withLock({ Array($0.values) }) { close(stream) }
    }

    /// Opens a session: starts its RPC with the handshake's caller and delivers its first requests. Returns
    /// the answer (array 0, as chunks) and its `X-HTTP-Session-Id`.
    private func handshake(
        _ method: WebChannelStream.Method, body: WebChannelWire.ForwardBody
    ) throws(FirestoreError) -> (String, String) {
        let authorization = body.headers["authorization"]
        let id = RandomID.make(length: 22, from: RandomID.base64URL)
        let stream: WebChannelStream
        switch method {
        case .listen:
            // Served on an event loop like a gRPC call: a forward channel's requests go straight to it.
            let credential = service.service.context(authorization: authorization).credential
            let listen = WebChannelListen(service: service, credential: credential)
            stream = WebChannelStream(
                id: id, method: method,
                deliver: { map in listen.receive(FirestoreGRPCService.request(try Self.decode(map))) },
                finishRequests: { listen.close() })
            listen.attach(to: stream)
        case .write:
            // Each request is committed and answered in the forward channel's own task, as it arrives.
            let write = WebChannelWrite(service: service.service, authorization: authorization)
            stream = WebChannelStream(
                id: id, method: method,
                deliver: { map in
                    let request: Google_Firestore_V1_WriteRequest = try Self.decode(map)
                    return write.answer(FirestoreGRPCService.request(request)).map { [$0] } ?? []
                },
                finishRequests: {})
        }
        streams.withLock { $0[id] = stream }
        startTicking()
        do {
            // The first maps' answers are queued: the back channel waits for them, not the handshake.
            _ = try stream.receiveNow(body.maps, offset: body.offset, acknowledging: nil)
        } catch {
            throw refusal(closing: stream, error)
        }
        return (WebChannelWire.handshake(sessionID: id), RandomID.make(length: 22, from: RandomID.base64URL))
    }

    /// A Write session's stream: a handshake, then one commit per request (`FirestoreService.respond`), each
    /// answered as its array's payload; the error that ends the stream is the last payload, and requests
    /// after it are not answered (the SDK opens a new stream).
    private final class WebChannelWrite: Sendable {
        private let service: FirestoreService
        private let authorization: String?
        private let stream = Mutex<WriteStream?>(WriteStream(id: RandomID.make(length: 20)))

        init(service: FirestoreService, authorization: String?) {
            self.service = service
            self.authorization = authorization
        }

        /// The payload answering `request`, or nil once the stream has ended.
        func answer(_ request: WriteStreamRequest) -> String? {
            stream.withLock { stream -> String? in
                guard var current = stream else { return nil }
                do {
                    let response = try service.respond(to: request, in: &current, authorization: authorization)
                    stream = current
                    return try WebChannelEndpoint.payload(FirestoreGRPCService.response(response))
                } catch {
                    stream = nil
                    return WebChannelWire.errorPayload(ending: error)
                }
            }
        }
    }

    private func close(_ stream: WebChannelStream) {
        streams.withLock { _ = $0.removeValue(forKey: stream.id) }
        stream.close()
    }

    /// Starts, once, the task that sends keepalives and expires abandoned sessions, every second.
    private func startTicking() {
        ticker.withLock { ticker in
            guard ticker == nil else { return }
            ticker = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    guard let self else { return }
                    let now = ContinuousClock.now
                    for stream in streams.withLock({ Array($0.values) }) where !stream.tick(now: now) {
                        close(stream)
                    }
                }
            }
        }
    }

    /// A request message from a map's proto3 JSON.
    private static func decode<Message: SwiftProtobuf.Message>(_ json: String) throws -> Message {
        try Message(jsonString: json, options: decoding)
    }

    /// A message as an array's payload, `[<proto3 JSON>]`.
    static func payload(_ message: some SwiftProtobuf.Message) throws -> String {
        "[" + (try message.jsonString()) + "]"
    }

    private static let decoding: JSONDecodingOptions = {
        var options = JSONDecodingOptions()
        options.ignoreUnknownFields = true
        return options
    }()

    private static func text(of request: Request) async throws -> String {
        String(decoding: try await request.collectBody(limit: FirestoreREST.bodyLimit), as: UTF8.self)
    }

    private static let contentType = "text/plain; charset=utf-8"
    /// An answer's header fields besides its content type.
    private static let cacheFields: HTTPFields = [
        .cacheControl: "no-cache, no-store, max-age=0, must-revalidate", .xContentTypeOptions: "nosniff",
    ]
    private static let headers: HTTPFields = [.contentType: contentType] + cacheFields

    private static func chunks(_ text: String) -> Response {
        Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}

extension HTTPField.Name {
    static let httpSessionID = Self("X-HTTP-Session-Id")!
    static let xContentTypeOptions = Self("X-Content-Type-Options")!
}

/// A channel's POSTs (handshakes, forward channels, `TYPE=terminate`) are answered on the connection's event
/// loop: delivering maps only queues them for the session's RPC (a Write session's commit runs under the
/// store's lock and returns), so a task would only add two thread hops to each of a browser's requests.
/// A forward channel whose answer must wait for room, and back channels, take the server's responder.
extension WebChannelEndpoint: ImmediateResponder {
    func answersImmediately(_ request: ImmediateRequest) -> Bool {
        request.method == .post && request.path.hasPrefix(Self.pathPrefix)
    }

    func respond(to request: ImmediateRequest, body: ByteBuffer) -> ImmediateResponse? {
        do throws(FirestoreError) {
            switch try step(
                method: request.method, path: request.path, query: FormFields(parsing: request.query), body: String(buffer: body))
            {
            case .answer(let text, let fields):
                return Self.immediate(text, fields)
            case .forwarded(let stream, let maps):
                let answer: String?
                do {
                    answer = try stream.receiveNow(maps.maps, offset: maps.offset, acknowledging: maps.arrayID)
                } catch {
                    throw refusal(closing: stream, error)
                }
                return answer.map { Self.immediate(WebChannelWire.chunk($0), [:]) }
            case .backChannel:
                return nil
            }
        } catch {
            return .error(error.apiError)
        }
    }

    private static func immediate(_ text: String, _ fields: HTTPFields) -> ImmediateResponse {
        ImmediateResponse(status: 200, contentType: contentType, body: ByteBuffer(string: text), headers: cacheFields + fields)
    }
}
