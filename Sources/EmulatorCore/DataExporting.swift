import Foundation
import Synchronization

/// An emulator whose data goes into an export and comes back from one: it writes its own folder of the
/// official export layout (`auth_export`, `firestore_export`, `database_export`, `storage_export`) and reads
/// one back. The suite owns the rest of the export: the metadata file, the staging folder and the swap.
public protocol DataExporting: Sendable {
    /// Writes the emulator's data into `folder`, which exists and is empty, counting into `progress` (the
    /// suite syncs the files to disk afterwards).
    func exportData(to folder: URL, progress: TransferProgress) async throws
    /// Loads what `folder` holds into the emulator, replacing what it holds under the same names (the project's
    /// users, a database, a namespace, an object). Everything is read and checked before anything changes: a
    /// missing or corrupt file throws `ImportError` naming it, and the data stays as it was.
    func importData(from folder: URL, progress: TransferProgress) async throws
}

/// Counts what an import or export has moved so far, for the progress line a long one shows.
public final class TransferProgress: Sendable {
    private let counts = Mutex<(items: Int, bytes: Int)>((0, 0))

    /// A counter at zero.
    public init() {}

    /// Adds `items` (documents, users, objects, nodes) and `bytes` read or written.
    public func add(items: Int = 0, bytes: Int = 0) {
        counts.withLock {
            $0.items += items
            $0.bytes += bytes
        }
    }

    /// The items and bytes so far.
    public var totals: (items: Int, bytes: Int) { counts.withLock { $0 } }
}

/// An import that cannot be done: the file (and, for Firestore, the record) at fault and what is wrong.
public struct ImportError: Error, Sendable, CustomStringConvertible {
    /// The file at fault.
    public var file: String
    /// What is wrong with it, including the record when there is one.
    public var message: String

    /// Creates an error about `file`.
    public init(file: String, _ message: String) {
        self.file = file
        self.message = message
    }

    /// `<file>: <message>`.
    public var description: String { "\(file): \(message)" }
}
