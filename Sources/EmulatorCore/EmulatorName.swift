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

    /// The name as written in config files and on the command line.
    public var description: String { rawValue }

    /// Orders emulators as the official CLI lists them.
    public static func < (lhs: EmulatorName, rhs: EmulatorName) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
