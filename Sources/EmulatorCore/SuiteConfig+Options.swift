import Foundation

extension SuiteConfig {
    /// Applies the command-line options of `hearth start` / `hearth exec` on top of the file's settings.
    ///
    /// - Parameters:
    ///   - only: names from `--only` (comma-separated lists allowed); `nil` keeps what the config names.
    ///   - project: `--project`.
    ///   - host: `--host`.
    ///   - ports: `--port NAME=PORT` values.
    ///   - ui: whether the command serves the Emulator UI (`start` does unless the config disables it, as
    ///     `emulators:start` does; `exec` only with `--ui`, as `emulators:exec`).
    public mutating func apply(
        only: [String]?, project: String?, host: String?, ports: [String], ui: Bool = false
    ) throws(ConfigError) {
        if let project {
            projectID = try Self.projectID(.string(project), at: "--project")
        }
        if let host {
            self.host = try Self.host(.string(host), at: "--host")
            for name in emulators.keys { emulators[name]?.host = nil }
        }
        if !emulators.keys.contains(where: Self.available.contains) {
            for name in Self.available { emulators[name] = EmulatorSettings() }
        }
        let uiSettings = emulators[.ui]
        if let only {
            let names = only.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
            var selected: [EmulatorName: EmulatorSettings] = [:]
            for raw in names where !raw.isEmpty {
                guard let name = EmulatorName(rawValue: raw) else {
                    throw ConfigError(
                        "--only: unknown emulator '\(raw)' (known: \(Self.known.map(\.rawValue).joined(separator: ", ")))")
                }
                selected[name] = emulators[name] ?? EmulatorSettings()
            }
            guard !selected.isEmpty else { throw ConfigError("--only: no emulator named") }
            emulators = selected
        }
        if ui, uiEnabled {
            emulators[.ui] = emulators[.ui] ?? uiSettings ?? EmulatorSettings()
        } else {
            emulators[.ui] = nil
        }
        for option in ports {
            let parts = option.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let name = EmulatorName(rawValue: parts[0]) else {
                throw ConfigError("--port \(option): expected NAME=PORT with NAME one of \(Self.known.map(\.rawValue).joined(separator: ", "))")
            }
            guard let number = Int(parts[1]), (0...65535).contains(number) else {
                throw ConfigError("--port \(option): expected a port number from 0 to 65535")
            }
            if name == .hub || emulators[name] != nil {
                emulators[name, default: EmulatorSettings()].port = number
            } else if name == .ui {
                throw ConfigError("--port \(option): the Emulator UI is not served (hearth exec serves it with --ui; the config may disable it)")
            } else {
                throw ConfigError("--port \(option): emulator '\(parts[0])' is not started")
            }
        }
        for name in emulators.keys where name != .hub && name != .ui && !Self.available.contains(name) {
            throw ConfigError("\(name.rawValue): this emulator is not available in this build of hearth yet")
        }
    }
}
