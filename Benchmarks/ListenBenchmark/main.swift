// Prints Firestore listener figures for the running machine: commit → listener latency (p50 / p99) with 1
// and 1,000 listeners, a 100,000-document query snapshot delivered to one listener, and the first read
// after start. Everything goes over real loopback sockets through gRPC, as the mobile SDKs connect.
// Beside each latency it prints this process's CPU time per commit, which shows where the time goes when
// listeners and server share the machine's cores:
//
//     swift run -c release ListenBenchmark [phase ...]
//
// Phases (default: all, in this order): `1` (one listener), `10x100` (1,000 listeners as 10 streams of 100
// targets: ten apps whose SDKs each multiplex 100 listeners on one stream), `1x1000` (1,000 listeners of one
// app on one stream), `1000` (1,000 listeners as 1,000 streams on 10 connections), `1000lean` (the same
// with listeners driven on NIO event loops, whose cost is a few µs a message, not grpc-swift's ~60), `snapshot` (the
// 100,000-document query). With
// FIRESTORE_EMULATOR_HOST=host:port it measures that server instead of one it creates in process.
//
// It asserts nothing; goals (p99 ≤ 5 ms) are printed beside the figures.

import EmulatorHTTP
import FirestoreEmulator
import FirestoreWire
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2Posix
import SwiftProtobuf
import Synchronization

let project = "demo-bench"
let database = "projects/\(project)/databases/(default)"
let root = database + "/documents"
let owner: Metadata = ["authorization": "Bearer owner"]
typealias Client = Google_Firestore_V1_Firestore.Client<HTTP2ClientTransport.Posix>

/// Runs `body` with a plaintext gRPC client on `port`.
func withClient<Result: Sendable>(port: Int, _ body: (Client) async throws -> Result) async throws -> Result {
    try await withGRPCClient(
        transport: try .http2NIOPosix(target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext)
    ) { grpc in try await body(Client(wrapping: grpc)) }
}

/// This run's mark in every written document: a write that leaves a document as it was changes nothing and
/// reaches no listener, so a second run against the same server would otherwise wait for ever.
let run = Int64.random(in: 1...Int64.max)

/// A one-document commit that sets `id` of `collection` to `value`.
func commit(_ collection: String, _ id: String, _ value: Int64) -> Google_Firestore_V1_CommitRequest {
    .with {
        $0.database = database
        $0.writes = [
            .with {
                $0.update.name = "\(root)/\(collection)/\(id)"
                $0.update.fields = ["n": .with { $0.integerValue = value }, "run": .with { $0.integerValue = run }]
            }
        ]
    }
}

/// A listen request (target `id`) for every document of `collection`.
func target(_ collection: String, id: Int32 = 1) -> Google_Firestore_V1_ListenRequest {
    .with {
        $0.database = database
        $0.addTarget.targetID = id
        $0.addTarget.query.parent = root
        $0.addTarget.query.structuredQuery.from = [.with { $0.collectionID = collection }]
    }
}

/// Whether `message` is the global snapshot that completes a batch of changes.
func isSnapshot(_ message: Google_Firestore_V1_ListenResponse) -> Bool {
    if case .targetChange(let change) = message.responseType { return change.targetIds.isEmpty && change.hasReadTime }
    return false
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

/// The CPU time this process has used so far (user and system), in milliseconds.
func processCPU() -> Double {
    var usage = rusage()
    #if os(Linux)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    func ms(_ time: timeval) -> Double { Double(time.tv_sec) * 1000 + Double(time.tv_usec) / 1000 }
    return ms(usage.ru_utime) + ms(usage.ru_stime)
}

/// When each measured commit was sent, and a countdown of the deliveries the committer waits for. Each
/// stream keeps its own samples, so listeners never wait on one another to record one.
final class Deliveries: Sendable {
    private let sentAt: Mutex<[ContinuousClock.Instant?]>
    private let waiting = Mutex<(remaining: Int, continuation: CheckedContinuation<Void, Never>?)>((0, nil))

    /// Room for `commits` commits.
    init(commits: Int) {
        sentAt = Mutex(Array(repeating: nil, count: commits))
    }

    /// Marks commit `index` as sent now.
    func markSent(_ index: Int) {
        let now = ContinuousClock.now
        sentAt.withLock { $0[index] = now }
    }

    /// Milliseconds from commit `index`'s sending to `instant` (nil if it is not measured).
    func latency(of index: Int, at instant: ContinuousClock.Instant) -> Double? {
        let sent = sentAt.withLock { $0.indices.contains(index) ? $0[index] : nil }
        return sent.map { milliseconds(instant - $0) }
    }

    /// Waits until `count` deliveries have been counted by `delivered`.
    func wait(for count: Int) async {
        await withCheckedContinuation { continuation in
            let done = waiting.withLock { state -> Bool in
                state.remaining += count
                if state.remaining <= 0 { return true }
                state.continuation = continuation
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Counts `count` deliveries.
    func delivered(_ count: Int) {
        let ready = waiting.withLock { state -> CheckedContinuation<Void, Never>? in
            state.remaining -= count
            guard state.remaining <= 0, let continuation = state.continuation else { return nil }
            state.continuation = nil
            return continuation
        }
        ready?.resume()
    }
}

/// Commit → listener latency with `listeners` listeners, `perStream` targets on each stream, the streams
/// spread over `connections` connections. The first `warmUp` commits are not measured (they fill caches
/// and instantiate code paths for the first time). Also prints this process's CPU time per measured
/// commit: with `FIRESTORE_EMULATOR_HOST` set that is the listeners' (and the committer's) share alone.
func latency(port: Int, listeners: Int, perStream: Int = 1, connections: Int, commits: Int, warmUp: Int = 10)
    async throws
{
    let collection = "latency\(listeners)x\(perStream)"
    let streamCount = listeners / perStream
    let deliveries = Deliveries(commits: warmUp + commits)
    let ready = AsyncStream<Void>.makeStream()
    var cpu = (start: 0.0, end: 0.0)
    var acknowledged: [Double] = []
    let samples = try await withThrowingTaskGroup(of: [Double].self) { group in
        for connection in 0..<connections {
            let share = streamCount / connections + (connection < streamCount % connections ? 1 : 0)
            group.addTask {
                try await withClient(port: port) { client in
                    try await withThrowingTaskGroup(of: [Double].self) { streams in
                        for _ in 0..<share {
                            streams.addTask {
                                let (requests, requestsIn) = AsyncStream<Google_Firestore_V1_ListenRequest>.makeStream()
                                for id in 1...perStream { requestsIn.yield(target(collection, id: Int32(id))) }
                                return try await client.listen(metadata: owner) { writer in
                                    for await request in requests { try await writer.write(request) }
                                } onResponse: { response in
                                    var snapshots = 0
                                    var received = 0
                                    var samples: [Double] = []
                                    samples.reserveCapacity(commits * perStream)
                                    for try await message in response.messages {
                                        if snapshots < perStream {
                                            if isSnapshot(message) {
                                                snapshots += 1
                                                if snapshots == perStream { ready.continuation.yield() }
                                            }
                                            continue
                                        }
                                        if case .documentChange(let change) = message.responseType {
                                            let now = ContinuousClock.now
                                            // Document ids are `m<commit index>`.
                                            let index = change.document.name.lastIndex(of: "m").flatMap {
                                                Int(change.document.name[change.document.name.index(after: $0)...])
                                            }
                                            if let index, let sample = deliveries.latency(of: index, at: now) {
                                                samples.append(contentsOf: repeatElement(sample, count: change.targetIds.count))
                                            }
                                            received += 1
                                            deliveries.delivered(change.targetIds.count)
                                            if received == warmUp + commits { break }
                                        }
                                    }
                                    requestsIn.finish()
                                    return samples
                                }
                            }
                        }
                        return try await streams.reduce(into: []) { $0 += $1 }
                    }
                }
            }
        }
        var readyCount = 0
        for await _ in ready.stream {
            readyCount += 1
            if readyCount == streamCount { break }
        }
        try await withClient(port: port) { writer in
            for index in 0..<(warmUp + commits) {
                if index == warmUp { cpu.start = processCPU() }
                if index >= warmUp { deliveries.markSent(index) }
                let sent = ContinuousClock.now
                _ = try await writer.commit(commit(collection, "m\(index)", Int64(index)), metadata: owner)
                if index >= warmUp { acknowledged.append(milliseconds(ContinuousClock.now - sent)) }
                await deliveries.wait(for: listeners)
            }
            cpu.end = processCPU()
        }
        return try await group.reduce(into: []) { $0 += $1 }
    }
    let shape = perStream == 1 ? "\(listeners) streams" : "\(streamCount) streams × \(perStream) targets"
    report(
        listeners: listeners, shape: shape, commits: commits, samples: samples, acknowledged: acknowledged,
        cpu: cpu.end - cpu.start)
}

/// Prints the latency of `listeners` listeners of `shape` (p50, p99, max), and of the commits' acknowledgements,
/// and this process's CPU time per commit (`cpu` milliseconds over all of them).
func report(listeners: Int, shape: String, commits: Int, samples: [Double], acknowledged: [Double], cpu: Double) {
    let sorted = samples.sorted()
    print(
        String(
            format: "  %5d listener(s) (%@), %d commits: p50 %.2f ms, p99 %.2f ms, max %.2f ms  (goal p99 <= 5 ms)",
            listeners, shape, commits, percentile(sorted, 0.5), percentile(sorted, 0.99), sorted.last ?? .nan))
    let acknowledged = acknowledged.sorted()
    print(
        String(
            format: "        commit acknowledged after p50 %.2f ms, p99 %.2f ms",
            percentile(acknowledged, 0.5), percentile(acknowledged, 0.99)))
    print(
        String(
            format: "        CPU time of this process per commit: %.2f ms (%@)", cpu / Double(commits),
            ProcessInfo.processInfo.environment["FIRESTORE_EMULATOR_HOST"] == nil
                ? "server, listeners and committer" : "listeners and committer only"))
}

/// Loads `count` documents, then times one listener's initial snapshot of all of them.
func bigSnapshot(port: Int, count: Int) async throws {
    try await withClient(port: port) { client in
        var next = 0
        while next < count {
            let batch = min(500, count - next)
            let request = Google_Firestore_V1_CommitRequest.with {
                $0.database = database
                $0.writes = (next..<(next + batch)).map { index in
                    .with { $0.update.name = "\(root)/big/d\(index)"; $0.update.fields = ["n": .with { $0.integerValue = Int64(index) }] }
                }
            }
            _ = try await client.commit(request, metadata: owner)
            next += batch
        }
        let started = ContinuousClock.now
        let (requests, requestsIn) = AsyncStream<Google_Firestore_V1_ListenRequest>.makeStream()
        requestsIn.yield(target("big"))
        let documents = try await client.listen(metadata: owner) { writer in
            for await request in requests { try await writer.write(request) }
        } onResponse: { response in
            var documents = 0
            for try await message in response.messages {
                if case .documentChange = message.responseType { documents += 1 }
                if isSnapshot(message) { break }
            }
            requestsIn.finish()
            return documents
        }
        print(
            String(
                format: "  %d-document query snapshot delivered to a listener in %.0f ms (%d documents received)",
                count, milliseconds(ContinuousClock.now - started), documents))
    }
}

let external = ProcessInfo.processInfo.environment["FIRESTORE_EMULATOR_HOST"].flatMap { $0.split(separator: ":").last }
    .flatMap { Int($0) }
let startedAt = ContinuousClock.now
let emulator = external == nil ? try FirestoreEmulator(projectID: project, port: 0) : nil
let port: Int
if let external { port = external } else { port = try await emulator!.start() }
if emulator != nil {
    try await withClient(port: port) { client in
        var get = Google_Firestore_V1_BatchGetDocumentsRequest()
        get.database = database
        get.documents = ["\(root)/rooms/first"]
        _ = try await client.batchGetDocuments(get, metadata: owner) { response in
            for try await _ in response.messages {}
        }
        print(
            String(
                format: "first read %.1f ms after the emulator was created (in process; the official emulator: 8.4 s)",
                milliseconds(ContinuousClock.now - startedAt)))
    }
}
let phases = Set(CommandLine.arguments.dropFirst())
func runs(_ phase: String) -> Bool { phases.isEmpty || phases.contains(phase) }
print("commit → listener latency over gRPC on loopback:")
if runs("1") { try await latency(port: port, listeners: 1, connections: 1, commits: 500) }
if runs("10x100") { try await latency(port: port, listeners: 1000, perStream: 100, connections: 10, commits: 300) }
if runs("1x1000") { try await latency(port: port, listeners: 1000, perStream: 1000, connections: 1, commits: 300) }
if runs("1000") { try await latency(port: port, listeners: 1000, connections: 10, commits: 300) }
if runs("1000lean") { try await leanLatency(port: port, streams: 1000, connections: 10, commits: 300) }
if runs("snapshot") { try await bigSnapshot(port: port, count: 100_000) }
await emulator?.stop()
