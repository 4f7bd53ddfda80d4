import ArgumentParser
import AsyncHTTPClient
import EmulatorCore
import Foundation
import NIOCore
import NIOHTTP1
import Suite

/// `hearth export DIR`: asks a running suite (found through its hub) to export its data to DIR.
struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Export the data of running emulators to a folder, in the official export layout.",
        discussion: """
            Finds the suite of the project through the hub's locator file ($TMPDIR/hub-<project>.json), else \
            FIREBASE_EMULATOR_HUB, and asks its hub (POST /_admin/export). The export is written beside DIR and \
            swapped in when complete; DIR may be new, empty, or a previous export (replaced only with --force). \
            Import it with `hearth start --import DIR`.
            """)

    @Argument(help: ArgumentHelp("The export folder.", valueName: "dir"))
    var path: String

    @Option(name: .long, help: ArgumentHelp("Emulators to export, comma-separated (default: every running one).", valueName: "names"))
    var only: [String] = []

    @OptionGroup var projectOptions: ProjectOptions

    @Flag(name: .long, help: "Replace a previous export in DIR.")
    var force = false

    func run() async throws {
        let folder = URL(fileURLWithPath: path).standardizedFileURL.path
        let targets = only.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        for name in targets where EmulatorName(rawValue: name) == nil {
            throw CleanExit.failure("hearth: --only: unknown emulator '\(name)' (known: auth, firestore, database, storage)")
        }
        do {
            try Suite.checkExportTarget(folder)
        } catch {
            throw CleanExit.failure("hearth: \(error.message)")
        }
        let contents = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        if !contents.isEmpty, !force, !confirmReplacing(folder) {
            throw CleanExit.failure("hearth: Export already exists in the target directory, re-run with --force to overwrite.")
        }
        let hub = try hubOrigin()
        print("Found running emulator hub for project \(try projectID()) at \(hub)")
        print("Exporting data to: \(folder)")
        var body: [String: JSONValue] = ["path": .string(folder), "initiatedBy": "export"]
        if !targets.isEmpty { body["targets"] = .array(targets.map { .string($0) }) }
        let (status, answer) = try await post(hub + "/_admin/export", body: .object(body))
        guard status == 200 else {
            let message = answer?["message"]?.stringValue ?? "status \(status)"
            throw CleanExit.failure("hearth: Export request failed: \(message)")
        }
        print("Export complete")
    }

    /// On a terminal, asks before a previous export is replaced, as the official CLI does (default: no);
    /// elsewhere (CI, scripts) the answer is no, and `--force` is the way to say yes.
    private func confirmReplacing(_ folder: String) -> Bool {
        guard isatty(STDIN_FILENO) == 1 else { return false }
        print("The directory \(folder) is not empty. Existing files in this directory will be overwritten. "
            + "Do you want to continue? (y/N) ", terminator: "")
        return ["y", "yes"].contains(readLine()?.trimmingCharacters(in: .whitespaces).lowercased() ?? "")
    }

    private func projectID() throws -> String {
        do {
            return try projectOptions.projectID()
        } catch {
            throw CleanExit.failure("hearth: \(error.message)")
        }
    }

    /// `http://host:port` of the project's hub: the first origin in its locator file, else `FIREBASE_EMULATOR_HUB`.
    private func hubOrigin() throws -> String {
        let project = try projectID()
        if let data = FileManager.default.contents(atPath: Suite.locatorPath(projectID: project)), let json = try? JSONValue.parse(data),
            let origin = json["origins"]?.arrayValue?.first?.stringValue
        {
            return origin
        }
        if let hub = ProcessInfo.processInfo.environment["FIREBASE_EMULATOR_HUB"], !hub.isEmpty {
            return hub.hasPrefix("http") ? hub : "http://\(hub)"
        }
        throw CleanExit.failure("hearth: Did not find any running emulators for project \(project).")
    }

    private func post(_ url: String, body: JSONValue) async throws -> (Int, JSONValue?) {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: body.serialized()))
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: .hours(1))
            let data = try await response.body.collect(upTo: 1 << 20)
            return (Int(response.status.code), try? JSONValue.parse(Data(data.readableBytesView)))
        } catch {
            throw CleanExit.failure("hearth: The emulator hub at \(url) did not respond: \(error)")
        }
    }
}
