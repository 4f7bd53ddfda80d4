import EmulatorCore
import Foundation

extension FirestoreREST {
    /// `POST /emulator/v1/projects/{p}:export` with `{"database", "export_directory", "export_name"}` (emulator
    /// only, as firebase-tools calls the official emulator; the folder must exist, the name defaults to
    /// `firestore_export_<unix seconds>`): writes `<export_directory>/<export_name>/` in the
    /// managed-export format, the database named (every database of the project when none is) and answers
    /// `{}`, as the official emulator does. The folder must be new or empty, so a stray call never replaces data; it is written beside
    /// and moved into place when complete.
    func export(_ project: String, _ call: RESTCall) async throws(FirestoreError) -> JSONValue {
        try call.checkBody(allowing: ["database", "export_directory", "exportDirectory", "export_name", "exportName"])
        guard let directory = (call.body["export_directory"] ?? call.body["exportDirectory"])?.stringValue, !directory.isEmpty else {
            throw FirestoreError(.invalidArgument, "export_directory is required.")
        }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isFolder), isFolder.boolValue else {
            throw FirestoreError(.failedPrecondition, "export_directory must be a directory.")
        }
        let name = (call.body["export_name"] ?? call.body["exportName"])?.stringValue
            ?? "firestore_export_\(Int(Date().timeIntervalSince1970))"
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
            throw FirestoreError(.invalidArgument, "export_name must be a folder name.")
        }
        var databases = store.snapshot(project: project)
        if let database = call.body["database"]?.stringValue {
            let parts = database.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 4, parts[0] == "projects", parts[1] == project, parts[2] == "databases", !parts[3].isEmpty else {
                throw FirestoreError(.invalidArgument, "database must be projects/\(project)/databases/{database_id}.")
            }
            databases = databases.filter { $0.name.database == parts[3] }
        }
        let target = URL(fileURLWithPath: directory).appendingPathComponent(name).standardizedFileURL
        let files = FileManager.default
        if let contents = try? files.contentsOfDirectory(atPath: target.path), !contents.isEmpty {
            throw FirestoreError(.failedPrecondition, "Export folder '\(target.path)' already exists and is not empty.")
        }
        let staging = target.deletingLastPathComponent().appendingPathComponent(".\(name).hearth-\(UUID().uuidString.prefix(8))")
        do {
            try files.createDirectory(at: staging, withIntermediateDirectories: true)
            try FirestoreExport.write(databases, to: staging, name: name, progress: TransferProgress())
            try DurableFile.syncTree(staging)
            if files.fileExists(atPath: target.path) { try files.removeItem(at: target) }  // empty, checked above
            try files.moveItem(at: staging, to: target)
        } catch {
            try? files.removeItem(at: staging)
            throw FirestoreError(.internal, "Export to '\(target.path)' failed: \(error.localizedDescription)")
        }
        return [:]
    }
}
