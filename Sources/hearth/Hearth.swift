import ArgumentParser

/// `hearth`: the local Firebase emulator suite.
@main
struct Hearth: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hearth",
        abstract: "Local Firebase emulators in one binary: Auth, Firestore, Realtime Database, Storage and the hub.",
        discussion: """
            Reads emulator.json in the working directory, else the emulators section of firebase.json, \
            else uses defaults (project demo-hearth, official ports, host 127.0.0.1).
            """,
        version: "0.1.0",
        subcommands: [Start.self, Exec.self, Export.self, Rules.self]
    )

    /// Runs the command; a bare `--export-on-exit` (no folder after it) means the import folder, as the
    /// official CLI reads it, which the argument parser cannot express: it becomes the hidden
    /// `--export-on-exit-to-import`.
    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        let options = arguments.firstIndex(of: "--") ?? arguments.endIndex
        for index in arguments[..<options].indices where arguments[index] == "--export-on-exit" {
            let next = arguments.index(after: index)
            if next == options || arguments[next].hasPrefix("-") { arguments[index] = "--export-on-exit-to-import" }
        }
        await main(arguments)
    }
}
