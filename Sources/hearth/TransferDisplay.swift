import Foundation
import Suite

/// Shows an import or export on the terminal: after a second, a progress line (counts, bytes, rate) that
/// rewrites itself on a terminal and repeats every few seconds otherwise; at the end, the one-line summary.
struct TransferDisplay {
    let transfer: DataTransfer
    let output: FileHandle

    /// Runs `work`, showing its progress; prints the summary when it succeeds.
    func show(_ work: () async throws -> Void) async throws {
        let interactive = isatty(output.fileDescriptor) == 1
        let transfer = self.transfer
        let output = self.output
        let monitor = Task {
            try await Task.sleep(for: .seconds(1))
            while !Task.isCancelled {
                let line = transfer.progressLine
                output.write(Data((interactive ? "\r\u{1B}[K" + line : line + "\n").utf8))
                try await Task.sleep(for: interactive ? .milliseconds(250) : .seconds(5))
            }
        }
        let outcome: Result<Void, any Error>
        do {
            try await work()
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        monitor.cancel()
        _ = await monitor.result
        if interactive { output.write(Data("\r\u{1B}[K".utf8)) }
        try outcome.get()
        output.write(Data((transfer.summary + "\n").utf8))
    }
}

/// Export-on-exit: exports the suite to `folder` while a further signal can abandon it. It never fails the
/// shutdown: a failed or abandoned export is reported and the previous export stays as it was.
func exportOnExit(_ suite: Suite, to folder: String, signals: ShutdownSignals, output: FileHandle) async {
    output.write(Data("Automatically exporting data using --export-on-exit \"\(folder)\" please wait for the export to finish...\n".utf8))
    let export: Suite.Export
    do {
        export = try suite.export(to: folder)
    } catch {
        output.write(Data("\(error)\nAutomatic export to \"\(folder)\" failed, going to exit now...\n".utf8))
        return
    }
    let abandonAt = signals.count + 1
    let exporting = Task { try await TransferDisplay(transfer: export.transfer, output: output).show { try await export.run() } }
    let watching = Task {
        await signals.wait(for: abandonAt)
        if !Task.isCancelled { exporting.cancel() }
    }
    // The export's own outcome decides the message: one the signal came too late to stop is complete.
    let result = await exporting.result
    watching.cancel()
    let outcome: String?
    switch result {
    case .success: outcome = nil
    case .failure(is CancellationError): outcome = "Export abandoned; \"\(folder)\" is as it was."
    case .failure(let error): outcome = "\(error)\nAutomatic export to \"\(folder)\" failed, going to exit now..."
    }
    if let outcome { output.write(Data((outcome + "\n").utf8)) }
}
