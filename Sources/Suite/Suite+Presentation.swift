import EmulatorCore
import Foundation

extension Suite {
    /// The line printed once every emulator accepts connections (the official wording).
    public static let readyLine = "All emulators ready! It is now safe to connect your app."

    /// The table of emulators and addresses, then the ready line; first, when the config file sets up
    /// emulators Hearth does not run, one line naming them.
    public var readyTable: String {
        let rows = running.map { ($0.name.displayName, $0.hostAndPort) }
        let nameWidth = max("Emulator".count, rows.map(\.0.count).max() ?? 0)
        let addressWidth = max("Host:Port".count, rows.map(\.1.count).max() ?? 0)
        func row(_ name: String, _ address: String) -> String {
            "│ \(name.padding(toLength: nameWidth, withPad: " ", startingAt: 0)) │ \(address.padding(toLength: addressWidth, withPad: " ", startingAt: 0)) │"
        }
        let line = { (left: String, middle: String, right: String) in
            left + String(repeating: "─", count: nameWidth + 2) + middle + String(repeating: "─", count: addressWidth + 2)
                + right
        }
        var lines: [String] = []
        if !config.notEmulated.isEmpty {
            let file = config.sourceFile.map { ($0 as NSString).lastPathComponent } ?? "the config"
            lines.append("⚠  Not emulated by Hearth: \(config.notEmulated.joined(separator: ", ")) (set up in \(file)).")
        }
        lines += [line("┌", "┬", "┐"), row("Emulator", "Host:Port"), line("├", "┼", "┤")]
        lines += rows.map { row($0.0, $0.1) }
        lines.append(line("└", "┴", "┘"))
        lines.append("")
        lines.append("✔  \(Suite.readyLine)")
        if let ui = emulator(.ui) { lines.append("i  View Emulator UI at http://\(ui.connectAddress)/") }
        return lines.joined(separator: "\n")
    }

    /// The environment `hearth exec` gives its command, as the official `emulators:exec` does:
    /// only the variables of emulators that run.
    public var environment: [String: String] {
        var variables: [String: String] = ["GCLOUD_PROJECT": config.projectID]
        var firebaseConfig: [String: JSONValue] = ["projectId": .string(config.projectID)]
        for emulator in running {
            let address = emulator.connectAddress
            if let variable = emulator.name.hostVariable { variables[variable] = address }
            switch emulator.name {
            case .database:
                let namespace = SuiteConfig.defaultDatabaseNamespace(of: config.projectID)
                firebaseConfig["databaseURL"] = .string("http://\(address)/?ns=\(namespace)")
            case .storage:
                variables["STORAGE_EMULATOR_HOST"] = "http://\(address)"
                let bucket = config.emulators[.storage]?.bucket ?? SuiteConfig.defaultBucket(of: config.projectID)
                firebaseConfig["storageBucket"] = .string(bucket)
            case .auth, .firestore, .hub, .ui: break
            }
        }
        variables["FIREBASE_CONFIG"] = JSONValue.object(firebaseConfig).serialized()
        return variables
    }
}
