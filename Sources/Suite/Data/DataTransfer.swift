import EmulatorCore
import Foundation

/// An export or an import ready to run.
public protocol DataJob: Sendable {
    /// What it has moved so far.
    var transfer: DataTransfer { get }
    /// Moves the data.
    func run() async throws
}

/// One import or export of the suite as it runs: what each emulator has moved so far, for a progress line
/// while it lasts and a summary at the end.

public final class DataTransfer: Sendable {
    /// Import or export.
    public enum Direction: Sendable {
        /// Data read into the emulators.
        case `import`
        /// Data written out of them.
        case export
    }

    /// Which way the data goes.
    public let direction: Direction
    /// The export folder.
    public let path: String
    /// When it began.
    public let start: Date
    let parts: [(name: EmulatorName, progress: TransferProgress)]

    init(direction: Direction, path: String, emulators: [EmulatorName]) {
        self.direction = direction
        self.path = path
        start = Date()
        parts = emulators.map { ($0, TransferProgress()) }
    }

    func progress(of name: EmulatorName) -> TransferProgress {
        parts.first { $0.name == name }?.progress ?? TransferProgress()
    }

    /// What each emulator's items are called.
    static func noun(of name: EmulatorName) -> String {
        switch name {
        case .auth: return "accounts"
        case .firestore: return "documents"
        case .database: return "namespaces"
        case .storage: return "objects"
        case .hub, .ui: return "items"
        }
    }

    /// `firestore 120,000 documents (34.5 MB), auth 12 accounts` so far.
    public var counts: String {
        parts.map { part in
            let totals = part.progress.totals
            return "\(part.name) \(Self.format(totals.items)) \(Self.noun(of: part.name)) (\(Self.format(bytes: totals.bytes)))"
        }.joined(separator: ", ")
    }

    /// The progress line: counts so far and the rate, e.g. `Exporting: firestore 120,000 documents (34.5 MB),
    /// 1.2 s, 51.3 MB/s`.
    public var progressLine: String {
        let seconds = Date().timeIntervalSince(start)
        let bytes = parts.reduce(0) { $0 + $1.progress.totals.bytes }
        let verb = direction == .export ? "Exporting" : "Importing"
        let rate = seconds > 0 ? Self.format(bytes: Int(Double(bytes) / seconds)) + "/s" : "-"
        return "\(verb): \(counts), \(String(format: "%.1f", seconds)) s, \(rate)"
    }

    /// The one-line summary: `Exported to ./seed in 1.3 s: firestore 1,000 documents (120.0 KB), ...`.
    public var summary: String {
        let seconds = Date().timeIntervalSince(start)
        let direction = self.direction == .export ? "Exported to" : "Imported from"
        let what = parts.isEmpty ? "nothing to move" : counts
        return "\(direction) \(path) in \(String(format: "%.1f", seconds)) s: \(what)."
    }

    static func format(_ count: Int) -> String {
        let digits = String(count)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return result
    }

    static func format(bytes: Int) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f", value) + " " + units[unit]
    }
}
