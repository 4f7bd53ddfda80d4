import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Makes what was written durable: `fsync` of files and folders, so an export reported done survives a crash
/// or power loss right after.
public enum DurableFile {
    /// Syncs the file or folder at `url`.
    public static func sync(_ url: URL) throws {
        let descriptor = open(url.path, O_RDONLY)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// Syncs every file and folder at and below `url`.
    public static func syncTree(_ url: URL) throws {
        if let walker = FileManager.default.enumerator(at: url, includingPropertiesForKeys: nil) {
            for case let child as URL in walker { try sync(child) }
        }
        try sync(url)
    }
}
