import EmulatorCore
import Foundation

/// `firebase-export-metadata.json`, the file at the top of an export: the version that wrote it and, for each
/// emulator exported, the folder holding its data (Firestore also names its `.overall_export_metadata` file).
struct ExportMetadata {
    /// The folder of each emulator's data, relative to the export folder.
    var folders: [EmulatorName: String]
    /// Firestore's metadata file, relative to the export folder.
    var firestoreMetadataFile: String?

    /// The official folder name of `name`'s data (`auth_export`, `firestore_export`, ...).
    static func folder(of name: EmulatorName) -> String { "\(name.rawValue)_export" }

    /// The name of the Firestore export's top-level metadata file, inside its folder.
    static let firestoreMetadataName = "firestore_export.overall_export_metadata"

    /// The metadata of an export of `emulators`, in the official folders.
    init(emulators: [EmulatorName]) {
        folders = Dictionary(uniqueKeysWithValues: emulators.map { ($0, Self.folder(of: $0)) })
        firestoreMetadataFile = emulators.contains(.firestore) ? "\(Self.folder(of: .firestore))/\(Self.firestoreMetadataName)" : nil
    }

    /// Reads the metadata file at `url`.
    init(contentsOf url: URL) throws(ImportError) {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw ImportError(file: url.path, "cannot be read.")
        }
        guard let json = try? JSONValue.parse(data), let object = json.objectValue else {
            throw ImportError(file: url.path, "is not a JSON object.")
        }
        folders = [:]
        firestoreMetadataFile = object["firestore"]?["metadata_file"]?.stringValue
        for name in [EmulatorName.auth, .firestore, .database, .storage] {
            guard let section = object[name.rawValue], section != .null else { continue }
            // Firestore's data is found through its metadata file; firebase-tools never reads its `path`.
            if name == .firestore, firestoreMetadataFile != nil {
                folders[name] = section["path"]?.stringValue ?? ""
                continue
            }
            guard let path = section["path"]?.stringValue, !path.isEmpty else {
                throw ImportError(file: url.path, "\(name.rawValue).path: expected the folder of the \(name.rawValue) data.")
            }
            folders[name] = path
        }
    }

    /// The file's text as the official CLI writes it: 2-space indent, sections in its order (`firestore`,
    /// `database`, `auth`, `storage`), no newline at the end.
    var text: String {
        var sections = ["  \"version\": \(JSONValue.string(Suite.version).serialized())"]
        for name in [EmulatorName.firestore, .database, .auth, .storage] {
            guard let folder = folders[name] else { continue }
            var members = [
                "    \"version\": \(JSONValue.string(Suite.version).serialized())",
                "    \"path\": \(JSONValue.string(folder).serialized())",
            ]
            if name == .firestore, let firestoreMetadataFile {
                members.append("    \"metadata_file\": \(JSONValue.string(firestoreMetadataFile).serialized())")
            }
            sections.append("  \"\(name.rawValue)\": {\n" + members.joined(separator: ",\n") + "\n  }")
        }
        return "{\n" + sections.joined(separator: ",\n") + "\n}"
    }
}
