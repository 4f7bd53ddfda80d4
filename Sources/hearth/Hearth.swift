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
        subcommands: [Start.self, Exec.self, Rules.self]
    )
}
