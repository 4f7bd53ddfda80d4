// Prints what one Firestore call costs the server in CPU time, by transport and operation, driven by a
// compiled client: hearth (`.build/release/hearth start --only firestore`, or `--bin PATH`) and, when it is
// installed, Google's official emulator (its JVM), side by side in one run.
//
//     swift run -c release CallBenchmark [--calls 20000] [--connections 4] [--concurrency 4] [--only hearth|official]
//         [--phases grpc/get,rest/set,...]
//
// `--connections` connections each carry `--concurrency` calls at a time: grpc-swift's client over gRPC, and
// AsyncHTTPClient (keep-alive HTTP/1.1, one call at a time per connection) over REST. Operations: `get` (one
// small document), `set` (overwrite one), `commit10` (a commit of 10 writes), `query10` (a range query with
// limit 10). The server's CPU time (user + system, /proc/PID/stat) over a phase is divided by its calls. A
// client whose costs are small and whose calls overlap shows what the server itself spends; the Python
// clients of bench/firestore_calls.py show what an app's official client makes it spend.
//
// Goals (issue 19): gRPC <= 60 µs and REST <= 30 µs per get/set, and >= 10x less than the official emulator
// on every operation. It asserts nothing.

import AsyncHTTPClient
import FirestoreWire
import Foundation
import GRPCCore
import GRPCProtobuf
import GRPCNIOTransportHTTP2Posix
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOPosix
import SwiftProtobuf

let project = "demo-calls"
let database = "projects/\(project)/databases/(default)"
let root = "\(database)/documents"
let seeded = 100

/// Prints `line` at once (stdout is a pipe when a script runs this, and the runs are long).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Command-line options.
struct Options {
    var calls = 20_000
    var connections = 4
    var concurrency = 4
    var only: String?
    var binary = ".build/release/hearth"
    /// The phases to run, as `transport/operation` (all when nil).
    var phases: Set<String>?

    /// Whether the phase of `operation` over `transport` runs.
    func runs(_ transport: String, _ operation: String) -> Bool {
        phases?.contains("\(transport)/\(operation)") ?? true
    }

    static let usage = """
        usage: CallBenchmark [--calls 20000] [--connections 4] [--concurrency 4] [--only hearth|official] [--bin PATH]
                             [--phases grpc/get,rest/set,...]
        """

    init(_ arguments: [String]) {
        var rest = arguments.makeIterator()
        while let argument = rest.next() {
            if argument == "--help" || argument == "-h" {
                say(Self.usage)
                exit(0)
            }
            let value = rest.next() ?? ""
            switch argument {
            case "--calls": calls = Int(value) ?? calls
            case "--connections": connections = Int(value) ?? connections
            case "--concurrency": concurrency = Int(value) ?? concurrency
            case "--only": only = value
            case "--bin": binary = value
            case "--phases": phases = Set(value.split(separator: ",").map(String.init))
            default:
                FileHandle.standardError.write(Data("CallBenchmark: unknown option \(argument)\n\(Self.usage)\n".utf8))
                exit(2)
            }
        }
    }
}

// MARK: - Servers

/// A server process on a loopback port.
struct Server {
    let label: String
    let process: Process
    let port: Int

    /// The process's CPU time so far (all threads, user + system), in seconds.
    var cpuSeconds: Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return .nan }
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return ((Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)) / ticks
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }

    /// A loopback port free a moment ago, for a server started with its port named.
    static func freePort() async throws -> Int {
        let probe = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let port = probe.localAddress?.port ?? 0
        try await probe.close()
        return port
    }

    /// Starts `arguments` and waits until `http://127.0.0.1:port/` answers.
    static func start(_ label: String, _ arguments: [String], port: Int, http: HTTPClient) async throws -> Server {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        var environment = ProcessInfo.processInfo.environment
        for key in environment.keys where key.hasSuffix("_EMULATOR_HOST") { environment[key] = nil }
        process.environment = environment
        // The server's output, for when a phase fails.
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("CallBenchmark-\(port).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let output = try FileHandle(forWritingTo: log)
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if let response = try? await http.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/"), timeout: .seconds(1)),
                response.status == .ok
            {
                return Server(label: label, process: process, port: port)
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        process.terminate()
        throw CancellationError()
    }
}

// MARK: - Calls

typealias GRPCFirestore = Google_Firestore_V1_Firestore.Client<HTTP2ClientTransport.Posix>

/// A small document's fields.
func fields(_ n: Int) -> [String: Google_Firestore_V1_Value] {
    ["n": .with { $0.integerValue = Int64(n) }, "text": .with { $0.stringValue = "a small document" }]
}

func write(_ id: String, _ n: Int) -> Google_Firestore_V1_Write {
    .with {
        $0.update.name = "\(root)/bench/\(id)"
        $0.update.fields = fields(n)
    }
}

let ownerMetadata: Metadata = ["authorization": "Bearer owner"]

/// One gRPC call of `operation`; `worker` keeps writers on their own documents.
func grpcCall(_ client: GRPCFirestore, _ operation: String, _ index: Int, worker: Int) async throws {
    switch operation {
    case "get":
        _ = try await client.getDocument(.with { $0.name = "\(root)/bench/doc-\(index % seeded)" }, metadata: ownerMetadata)
    case "set":
        _ = try await client.commit(
            .with {
                $0.database = database
                $0.writes = [write("w\(worker)-\(index % 50)", index)]
            }, metadata: ownerMetadata)
    case "commit10":
        _ = try await client.commit(
            .with {
                $0.database = database
                $0.writes = (0..<10).map { write("w\(worker)-\((index * 10 + $0) % 50)", index) }
            }, metadata: ownerMetadata)
    default:
        let request = Google_Firestore_V1_RunQueryRequest.with {
            $0.parent = root
            $0.structuredQuery.from = [.with { $0.collectionID = "bench" }]
            $0.structuredQuery.where.fieldFilter = .with {
                $0.field.fieldPath = "n"
                $0.op = .greaterThanOrEqual
                $0.value.integerValue = Int64(index % seeded)
            }
            $0.structuredQuery.orderBy = [.with { $0.field.fieldPath = "n" }]
            $0.structuredQuery.limit = .with { $0.value = 10 }
        }
        try await client.runQuery(request, metadata: ownerMetadata) { response in
            for try await _ in response.messages {}
        }
    }
}

/// The JSON form of `fields(n)`.
func jsonFields(_ n: Int) -> String {
    #"{"n":{"integerValue":"\#(n)"},"text":{"stringValue":"a small document"}}"#
}

/// One REST call of `operation`.
func restCall(_ http: HTTPClient, port: Int, _ operation: String, _ index: Int, worker: Int) async throws {
    let base = "http://127.0.0.1:\(port)/v1/\(root)"
    var request: HTTPClientRequest
    switch operation {
    case "get":
        request = HTTPClientRequest(url: "\(base)/bench/doc-\(index % seeded)")
    case "set":
        request = HTTPClientRequest(url: "\(base)/bench/w\(worker)-\(index % 50)")
        request.method = .PATCH
        request.body = .bytes(ByteBuffer(string: #"{"fields":\#(jsonFields(index))}"#))
    case "commit10":
        request = HTTPClientRequest(url: "\(base):commit")
        request.method = .POST
        let writes = (0..<10).map { k in
            #"{"update":{"name":"\#(root)/bench/w\#(worker)-\#((index * 10 + k) % 50)","fields":\#(jsonFields(index))}}"#
        }
        request.body = .bytes(ByteBuffer(string: #"{"writes":[\#(writes.joined(separator: ","))]}"#))
    default:
        request = HTTPClientRequest(url: "\(base):runQuery")
        request.method = .POST
        request.body = .bytes(
            ByteBuffer(
                string: #"""
                    {"structuredQuery":{"from":[{"collectionId":"bench"}],"where":{"fieldFilter":{"field":{"fieldPath":"n"},\#
                    "op":"GREATER_THAN_OR_EQUAL","value":{"integerValue":"\#(index % seeded)"}}},\#
                    "orderBy":[{"field":{"fieldPath":"n"}}],"limit":10}}
                    """#))
    }
    request.headers.add(name: "Authorization", value: "Bearer owner")
    request.headers.add(name: "Content-Type", value: "application/json")
    let response = try await http.execute(request, timeout: .seconds(30))
    let body = try await response.body.collect(upTo: 1 << 20)
    guard response.status == .ok else {
        fatalError("\(operation): \(response.status) \(String(buffer: body))")
    }
}

// MARK: - Phases

let operations = ["get", "set", "commit10", "query10"]

/// Runs `calls` calls of `operation` over `transport` as `connections` × `concurrency` loops and returns
/// the server's CPU microseconds per call and the calls per second.
func phase(
    _ server: Server, _ transport: String, _ operation: String, calls: Int, options: Options, grpc: [GRPCFirestore],
    http: HTTPClient
) async throws -> (cpu: Double, rate: Double) {
    let loops = options.connections * options.concurrency
    let perLoop = max(1, calls / loops)
    let before = server.cpuSeconds
    let started = ContinuousClock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for loop in 0..<loops {
            group.addTask {
                for index in 0..<perLoop {
                    do {
                        if transport == "grpc" {
                            try await grpcCall(grpc[loop % grpc.count], operation, index, worker: loop)
                        } else {
                            try await restCall(http, port: server.port, operation, index, worker: loop)
                        }
                    } catch {
                        fatalError("\(transport) \(operation) call \(index) of loop \(loop) failed: \(error)")
                    }
                }
            }
        }
        try await group.waitForAll()
    }
    let elapsed = ContinuousClock.now - started
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let total = Double(perLoop * loops)
    return ((server.cpuSeconds - before) / total * 1e6, total / seconds)
}

func measure(_ server: Server, options: Options, warmup: Int) async throws -> [String: Double] {
    let http = HTTPClient(
        eventLoopGroupProvider: .singleton,
        configuration: .init(connectionPool: .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: options.connections)))
    var transports: [GRPCClient<HTTP2ClientTransport.Posix>] = []
    for _ in 0..<options.connections {
        transports.append(
            GRPCClient(
                transport: try .http2NIOPosix(
                    target: .ipv4(address: "127.0.0.1", port: server.port), transportSecurity: .plaintext)))
    }
    let figures = try await withThrowingTaskGroup(of: Void.self) { group in
        var figures: [String: Double] = [:]
        for client in transports {
            group.addTask {
                do {
                    try await client.runConnections()
                } catch {
                    fatalError("a gRPC client's connection failed: \(error)")
                }
            }
        }
        defer {
            for client in transports { client.beginGracefulShutdown() }
        }
        let grpc = transports.map { GRPCFirestore(wrapping: $0) }
        _ = try await grpc[0].commit(
            .with {
                $0.database = database
                $0.writes = (0..<seeded).map { write("doc-\($0)", $0) }
            }, metadata: ownerMetadata)
        say(
            "\n\(server.label) (127.0.0.1:\(server.port), pid \(server.process.processIdentifier), output in "
                + "\(FileManager.default.temporaryDirectory.path)/CallBenchmark-\(server.port).log): warming up")
        for transport in ["grpc", "rest"] {
            for operation in operations where options.runs(transport, operation) {
                _ = try await phase(server, transport, operation, calls: warmup, options: options, grpc: grpc, http: http)
            }
        }
        for transport in ["grpc", "rest"] {
            for operation in operations where options.runs(transport, operation) {
                let (cpu, rate) = try await phase(
                    server, transport, operation, calls: options.calls, options: options, grpc: grpc, http: http)
                figures["\(transport) \(operation)"] = cpu
                say(
                    "  \(transport.padding(toLength: 5, withPad: " ", startingAt: 0)) \(operation.padding(toLength: 9, withPad: " ", startingAt: 0))"
                        + String(format: " %8.1f us server CPU per call  (%7.0f calls/s)", cpu, rate))
            }
        }
        return figures
    }
    try await http.shutdown()
    return figures
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
let probe = HTTPClient.shared
say(
    "server CPU per Firestore call, compiled client: \(options.connections) connections × \(options.concurrency) calls in flight, \(options.calls) calls per phase"
)
var results: [String: [String: Double]] = [:]
if options.only != "official" {
    let port = try await Server.freePort()
    let server = try await Server.start(
        "hearth",
        [options.binary, "start", "--only", "firestore", "--project", project, "--port", "firestore=\(port)", "--port", "hub=0"],
        port: port, http: probe)
    defer { server.stop() }
    results["hearth"] = try await measure(server, options: options, warmup: 2_000)
}
let officialDirectory = "/usr/lib/google-cloud-sdk/platform/cloud-firestore-emulator"
if options.only != "hearth" {
    if FileManager.default.fileExists(atPath: "\(officialDirectory)/cloud-firestore-emulator.jar"),
        FileManager.default.fileExists(atPath: "/usr/bin/java")
    {
        let port = try await Server.freePort()
        let server = try await Server.start(
            "official emulator",
            [
                "/usr/bin/java", "-Duser.language=en", "-cp", "\(officialDirectory)/cloud-firestore-emulator.jar",
                "com.google.cloud.datastore.emulator.firestore.CloudFirestore", "start", "--host", "127.0.0.1", "--port",
                "\(port)",
            ], port: port, http: probe)
        defer { server.stop() }
        // The JVM compiles hot code after thousands of calls: warm it up well before measuring.
        results["official"] = try await measure(server, options: options, warmup: 10_000)
    } else {
        say("\nofficial emulator: skipped (not installed: no \(officialDirectory) or no /usr/bin/java)")
    }
}
if let ours = results["hearth"], let theirs = results["official"] {
    say("\nserver CPU per call, hearth vs the official emulator (goal: >= 10x less)")
    for key in ours.keys.sorted() {
        guard let mine = ours[key], let other = theirs[key] else { continue }
        say("  \(key.padding(toLength: 15, withPad: " ", startingAt: 0))" + String(format: " %8.1f us vs %8.1f us  %5.1fx", mine, other, other / mine))
    }
}
