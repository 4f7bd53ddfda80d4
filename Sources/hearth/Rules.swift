import ArgumentParser
import DatabaseRules
import Foundation
import SecurityRules

/// `hearth rules`: tools for security rules files.
struct Rules: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Work with Firestore, Storage and Realtime Database security rules files.", subcommands: [Check.self])

    /// `hearth rules check FILE...`.
    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compile rules files and print their diagnostics (file:line:col: error: message).",
            discussion: """
                Files ending in .json are Realtime Database rules (database.rules.json); others are Firestore or \
                Storage rules. Exits non-zero if any file has an error. Warnings are printed but do not fail the check.
                """)

        @Argument(help: ArgumentHelp("Rules files (firestore.rules, storage.rules, database.rules.json, ...).", valueName: "file"))
        var files: [String]

        func validate() throws {
            guard !files.isEmpty else { throw ValidationError("name at least one rules file") }
        }

        func run() async throws {
            var failed = false
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else {
                    FileHandle.standardError.write(Data("\(file): error: cannot read the file\n".utf8))
                    failed = true
                    continue
                }
                let text = String(decoding: data, as: UTF8.self)
                if file.hasSuffix(".json") {
                    do {
                        _ = try DatabaseRuleSet(source: text)
                        FileHandle.standardOutput.write(Data("\(file): ok\n".utf8))
                    } catch {
                        FileHandle.standardError.write(Data("\(file):\(error.location): error: \(error.reason)\n".utf8))
                        failed = true
                    }
                    continue
                }
                let source = RulesSource(fileName: file, text: text)
                let compilation = RulesCompiler.compile(source)
                for diagnostic in compilation.diagnostics {
                    FileHandle.standardError.write(Data((diagnostic.description + "\n").utf8))
                }
                if compilation.hasErrors {
                    failed = true
                } else {
                    FileHandle.standardOutput.write(Data("\(file): ok\n".utf8))
                }
            }
            if failed { throw ExitCode(1) }
        }
    }
}
