/// The emulators and services of the suite, named as in `firebase.json` and `--only`.
public enum EmulatorName: String, Sendable, CaseIterable, Comparable, CustomStringConvertible {
    case auth
    case firestore
    case database
    case storage
    case hub
    case ui

    /// The official default port (firebase-tools `DEFAULT_PORTS`).
    public var defaultPort: Int {
        switch self {
        case .auth: return 9099
        case .firestore: return 8080
        case .database: return 9000
        case .storage: return 9199
        case .hub: return 4400
        case .ui: return 4000
        }
    }

    /// The name shown in the ready table, as the official CLI shows it.
    public var displayName: String {
        switch self {
        case .auth: return "Authentication"
        case .firestore: return "Firestore"
        case .database: return "Database"
        case .storage: return "Storage"
        case .hub: return "Emulator Hub"
        case .ui: return "Emulator UI"
        }
    }

    /// The environment variable through which the SDKs find this emulator's `host:port`, as `hearth exec`
    /// and the official `emulators:exec` set it (Storage's is also given as `STORAGE_EMULATOR_HOST`, with
    /// `http://`); nil for the UI.
    public var hostVariable: String? {
        switch self {
        case .auth: return "FIREBASE_AUTH_EMULATOR_HOST"
        case .firestore: return "FIRESTORE_EMULATOR_HOST"
        case .database: return "FIREBASE_DATABASE_EMULATOR_HOST"
        case .storage: return "FIREBASE_STORAGE_EMULATOR_HOST"
        case .hub: return "FIREBASE_EMULATOR_HUB"
        case .ui: return nil
        }
    }

    /// The name as written in config files and on the command line.
    public var description: String { rawValue }

    /// Orders emulators as the official CLI lists them.
    public static func < (lhs: EmulatorName, rhs: EmulatorName) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
